// Webhook signatures as the Standard Webhooks specification writes them (standardwebhooks.com):
// headers webhook-id, webhook-timestamp (Unix seconds) and webhook-signature "v1,<base64 of
// HMAC-SHA256 over `${id}.${timestamp}.${body}`>". A secret "whsec_<base64>" is used as the
// specification's receivers read it (the base64 part decoded is the key); any other secret is
// used as its UTF-8 bytes (receivers pass it raw).
import { base64 } from "../../lib/crypto.ts";

export const SECRET_PREFIX = "whsec_";

export function signingKeyOf(secret: string): Uint8Array<ArrayBuffer> {
  if (secret.startsWith(SECRET_PREFIX)) {
    const decoded = atob(secret.slice(SECRET_PREFIX.length));
    return Uint8Array.from(decoded, (c) => c.charCodeAt(0));
  }
  return new Uint8Array(new TextEncoder().encode(secret));
}

/** True when the secret is usable: a whsec_ secret must hold valid base64. */
export function isUsableSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return true;
  try {
    return signingKeyOf(secret).byteLength >= 16;
  } catch {
    return false;
  }
}

export async function signatureOf(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", signingKeyOf(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64(new Uint8Array(mac))}`;
}

/** The three headers of one attempt. */
export async function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Promise<Record<string, string>> {
  const timestamp = Math.floor(now / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "call-shield-webhooks/1",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureOf(secret, id, timestamp, body),
  };
}
