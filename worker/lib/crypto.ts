// Small cryptographic helpers over WebCrypto, shared by every credential the service keeps.

const encoder = new TextEncoder();

/** Standard base64 (with padding); built in slices so a recording of megabytes costs no quadratic copy. */
export function base64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 0x8000) parts.push(String.fromCharCode(...bytes.subarray(i, i + 0x8000)));
  return btoa(parts.join(""));
}

export function base64url(bytes: Uint8Array): string {
  return base64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

/** A random token of `bytes` bytes of entropy, URL-safe. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares two byte strings in time independent of where they differ. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** HMAC-SHA256 of `text` under `key`, as hex: a stable pseudonym of a value that must not be kept as is. */
export async function hmacSha256Hex(key: string, text: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(text));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// Written through `typeof crypto.subtle` rather than the DOM names (CryptoKey, SubtleCrypto), which
// the Node side of the project (scripts that import lib/) does not declare.
type DeriveKey = typeof crypto.subtle.deriveKey;
type DerivedKey = Awaited<ReturnType<DeriveKey>>;

const derivedKeys = new Map<string, Promise<DerivedKey>>();

/**
 * A key derived from `secret` with HKDF-SHA256 (no salt) for one purpose, named by `info`; kept
 * for the isolate's life, so each secret and purpose costs one derivation.
 */
export function derivedKey(
  secret: string,
  info: string,
  algorithm: Parameters<DeriveKey>[2],
  usages: Parameters<DeriveKey>[4],
): Promise<DerivedKey> {
  const cacheKey = `${info}\u0000${secret}`;
  let key = derivedKeys.get(cacheKey);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((ikm) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(info) },
          ikm,
          algorithm,
          false,
          usages,
        ),
      );
    derivedKeys.set(cacheKey, key);
  }
  return key;
}
