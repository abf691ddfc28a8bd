// Secrets kept at rest (destination credentials, webhook secrets, provider keys, exchange API
// keys): AES-256-GCM under a key derived from ENCRYPTION_KEY with HKDF-SHA256. Each value is
// bound to where it lives (the `context`, e.g. "destination:<id>:auth_password") as
// additional authenticated data, so a ciphertext copied to another row does not decrypt.
// Stored form: "v1.<iv>.<ciphertext>", both base64url.
import { base64url, derivedKey, fromBase64url } from "./crypto.ts";

/** A destination's sealed fields. */
export type DestinationSecret = "auth_password" | "webhook_secret" | "provider_api_key" | "webhook_token";

/**
 * The context a destination's secret is sealed under. Sealing and opening both call this: if it
 * changed on one side only, stored credentials would stop opening and digest auth would fail.
 */
export const destinationSecretContext = (destinationId: string, field: DestinationSecret) => `destination:${destinationId}:${field}`;

const encoder = new TextEncoder();
const keyFor = (keyMaterial: string) =>
  derivedKey(keyMaterial, "call-shield secrets v1", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);

export async function encryptSecret(keyMaterial: string, plaintext: string, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    await keyFor(keyMaterial),
    encoder.encode(plaintext),
  );
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

/** The plaintext, or null when the value was tampered with, moved, or sealed under another key. */
export async function decryptSecret(keyMaterial: string, stored: string, context: string): Promise<string | null> {
  const [version, iv, sealed] = stored.split(".");
  if (version !== "v1" || !iv || !sealed) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64url(iv), additionalData: encoder.encode(context) },
      await keyFor(keyMaterial),
      fromBase64url(sealed),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}
