// The payment provider: Checkout Sessions for a top-up or a plan's fee, and the verification of
// the provider's signed callbacks. Stripe in production (stripe.ts); locally the embedded checkout
// (local.ts), whose page sends events signed exactly as Stripe signs them, so the same
// verification runs. Both verify with the `stripe` library (signature.ts).
import type { Config } from "../../env.ts";
import { LocalCheckout } from "./local.ts";
import { localWebhookSecret } from "./signature.ts";
import type { PaymentProvider } from "./checkout.ts";
import { StripeCheckout } from "./stripe.ts";

export type PaymentSetup = { provider: PaymentProvider; webhookSecret: string; publishableKey: string } | null;

/** The configured provider and its webhook secret; null when payments are off. */
export async function paymentSetup(config: Config, origin: string): Promise<PaymentSetup> {
  if (config.PAYMENTS_PROVIDER === "off") return null;
  if (config.STRIPE_SECRET_KEY) {
    if (!config.STRIPE_WEBHOOK_SECRET) return null;
    return {
      provider: new StripeCheckout(config.STRIPE_SECRET_KEY),
      webhookSecret: config.STRIPE_WEBHOOK_SECRET,
      publishableKey: config.STRIPE_PUBLISHABLE_KEY ?? "",
    };
  }
  if (config.PAYMENTS_PROVIDER !== "local") return null;
  return {
    provider: new LocalCheckout(origin),
    webhookSecret: config.STRIPE_WEBHOOK_SECRET ?? (await localWebhookSecret(config.JWT_SECRET)),
    publishableKey: "pk_local",
  };
}
