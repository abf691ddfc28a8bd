// Stripe's webhook signature (Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.body">), checked
// and made with the `stripe` library's own functions over WebCrypto (no Node crypto in Workers).
import Stripe from "stripe";

/** Stripe's default tolerance: a signed event older than this is refused (replay). */
export const TOLERANCE_SEC = 300;

const subtleCrypto = Stripe.createSubtleCryptoProvider();
const webhooks = Stripe.webhooks;

export type StripeEvent = { id: string; type: string; created?: number; data: { object: Record<string, unknown> } };

/** The event, when the signature over the raw body is valid and fresh; null otherwise. */
export async function verifyEvent(rawBody: string, header: string | undefined, secret: string): Promise<StripeEvent | null> {
  if (!header) return null;
  try {
    return (await webhooks.constructEventAsync(rawBody, header, secret, TOLERANCE_SEC, subtleCrypto)) as unknown as StripeEvent;
  } catch {
    return null;
  }
}

/** A Stripe-Signature header for `payload`, as Stripe's library signs test events. */
export function signEvent(payload: string, secret: string, timestamp?: number): Promise<string> {
  return webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp, cryptoProvider: subtleCrypto });
}

/** The local checkout's webhook secret when none is configured: derived from JWT_SECRET, never stored. */
export async function localWebhookSecret(jwtSecret: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(jwtSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("local-payments-webhook"));
  return `whsec_${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}
