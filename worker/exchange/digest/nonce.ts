// Stateless Digest nonces and the opaque value. A nonce is its issue time (4 bytes, seconds),
// 12 random bytes and an HMAC-SHA256 tag (16 bytes) over both, base64url: the server keeps
// nothing to check one. The key is derived with HKDF-SHA-256 from EXCHANGE_NONCE_SECRET, else
// from JWT_SECRET (never the signing secret of access tokens itself), and domain-separated by a
// label and the realm. After EXCHANGE_NONCE_TTL_SEC a nonce is stale (still genuine, no longer
// accepted: the client retries with a fresh one without asking for the password again).
import { base64url, fromBase64url, timingSafeEqual } from "../../lib/crypto.ts";
import type { Config } from "../../env.ts";

const encoder = new TextEncoder();

const NONCE_BYTES = 32; // 4 issue time (seconds) + 12 random + 16 tag
const hmacKeys = new Map<string, Promise<CryptoKey>>();

/** HKDF-SHA-256(secret, info "exchange-digest-nonce") as an HMAC-SHA-256 key, once per isolate and secret. */
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((ikm) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("exchange-digest-nonce") },
          ikm,
          { name: "HMAC", hash: "SHA-256", length: 256 },
          false,
          ["sign"],
        ),
      );
    hmacKeys.set(secret, key);
  }
  return key;
}

const nonceSecret = (config: Config) => config.EXCHANGE_NONCE_SECRET ?? config.JWT_SECRET;

async function tag(config: Config, label: string, data: Uint8Array): Promise<Uint8Array> {
  const message = new Uint8Array([...encoder.encode(`exchange-digest:${label}:${config.EXCHANGE_DIGEST_REALM}:`), ...data]);
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(nonceSecret(config)), message);
  return new Uint8Array(mac, 0, 16);
}

export async function issueNonce(config: Config, nowSec = Math.floor(Date.now() / 1000)): Promise<string> {
  const body = new Uint8Array(16);
  new DataView(body.buffer).setUint32(0, nowSec);
  crypto.getRandomValues(body.subarray(4));
  const nonce = new Uint8Array(NONCE_BYTES);
  nonce.set(body);
  nonce.set(await tag(config, "nonce", body), 16);
  return base64url(nonce);
}

export type NonceState = { valid: false } | { valid: true; issuedSec: number; stale: boolean };

export async function checkNonce(config: Config, nonce: string, nowSec = Math.floor(Date.now() / 1000)): Promise<NonceState> {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64url(nonce);
  } catch {
    return { valid: false };
  }
  if (bytes.length !== NONCE_BYTES || !/^[A-Za-z0-9_-]+$/.test(nonce)) return { valid: false };
  const body = bytes.subarray(0, 16);
  if (!timingSafeEqual(bytes.subarray(16), await tag(config, "nonce", body))) return { valid: false };
  const issuedSec = new DataView(body.buffer, body.byteOffset, 16).getUint32(0);
  if (issuedSec > nowSec + 60) return { valid: false };
  return { valid: true, issuedSec, stale: nowSec - issuedSec > config.EXCHANGE_NONCE_TTL_SEC };
}

/** The opaque value: constant per realm and key, returned unchanged by clients. */
export const opaqueOf = async (config: Config) => base64url(await tag(config, "opaque", new Uint8Array(0)));
