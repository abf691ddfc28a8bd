// The account a placed call is made for, signed by the platform. Every call the platform places
// (test, verification and web-dialer calls) carries it in its INVITE as X-Call-Shield-Account: a
// compact JWS (EdDSA over Ed25519, RFC 8037) whose payload names the account, the call and the
// number, so a receiving network can attribute a call to the account or refuse it. The public
// key is published as a JWK Set at GET /api/public/call-signing-keys; jose signs.
import { calculateJwkThumbprint, CompactSign, type JWK } from "jose";
import type { Config } from "../../env.ts";

export const ASSERTION_TYPE = "call-shield-account+jws";

export type PlacedCallClaims = {
  /** The account the call is placed for. */
  customer_id: string;
  call_id: string;
  origin: "test" | "verify" | "dialer";
  /** The number the INVITE rings. */
  number: string;
};

/** The public half, as published. */
export type PublicJwk = { kty: string; crv: string; x: string; kid: string; alg: "EdDSA"; use: "sig" };
type SigningKey = { privateKey: CryptoKey; publicJwk: PublicJwk };

const encoder = new TextEncoder();
/** PKCS #8 wrapping of a raw Ed25519 seed (RFC 8410): this prefix, then the 32 bytes. */
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
const cache = new Map<string, Promise<SigningKey>>();

/** The platform's signing key: CALL_SIGNING_KEY's seed, else one derived from ENCRYPTION_KEY (HKDF). */
export function signingKeyOf(config: Pick<Config, "CALL_SIGNING_KEY" | "ENCRYPTION_KEY">): Promise<SigningKey> {
  const source = config.CALL_SIGNING_KEY ?? `derived:${config.ENCRYPTION_KEY}`;
  let key = cache.get(source);
  if (!key) {
    key = loadKey(config).catch((err: unknown) => {
      cache.delete(source);
      throw err;
    });
    cache.set(source, key);
  }
  return key;
}

async function loadKey(config: Pick<Config, "CALL_SIGNING_KEY" | "ENCRYPTION_KEY">): Promise<SigningKey> {
  const seed = config.CALL_SIGNING_KEY ? fromBase64Url(config.CALL_SIGNING_KEY) : await derivedSeed(config.ENCRYPTION_KEY);
  const pkcs8 = new Uint8Array(PKCS8_ED25519_PREFIX.length + seed.length);
  pkcs8.set(PKCS8_ED25519_PREFIX);
  pkcs8.set(seed, PKCS8_ED25519_PREFIX.length);
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
  const { kty, crv, x } = (await crypto.subtle.exportKey("jwk", privateKey)) as JsonWebKey;
  const jwk = { kty: kty!, crv: crv!, x: x! } satisfies JWK;
  return { privateKey, publicJwk: { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "EdDSA", use: "sig" } };
}

async function derivedSeed(secret: string): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("call-shield placed-call signing key") },
    material,
    256,
  );
  return new Uint8Array(bits);
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The signed assertion of a placed call: a compact JWS of its claims, issued now. */
export async function signPlacedCall(
  config: Pick<Config, "CALL_SIGNING_KEY" | "ENCRYPTION_KEY">,
  claims: PlacedCallClaims,
): Promise<string> {
  const key = await signingKeyOf(config);
  const payload = { ...claims, iat: Math.floor(Date.now() / 1000) };
  return new CompactSign(encoder.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "EdDSA", kid: key.publicJwk.kid, typ: ASSERTION_TYPE })
    .sign(key.privateKey);
}

/** The JWK Set a receiving network verifies the header with. */
export async function callSigningKeys(config: Pick<Config, "CALL_SIGNING_KEY" | "ENCRYPTION_KEY">) {
  return { keys: [(await signingKeyOf(config)).publicJwk] };
}
