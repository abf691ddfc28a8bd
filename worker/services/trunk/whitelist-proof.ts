// Proof of control of a whitelist range (issue 20, finding 4). The code of an entry is an HMAC of
// its id and a random per-entry nonce, under a key derived from ENCRYPTION_KEY. It travels only
// to the SIP nodes (the whitelist snapshot), which put it in the 200 they answer an OPTIONS from an
// address inside the range with (header X-Call-Shield-Proof). A spoofed source never receives that
// answer, so only an account that receives packets at an address of the range can read the code
// and enter it back (POST /customer/ips/{ip_id}/verify).
import type { Config } from "../../env.ts";
import { derivedKey, randomToken, timingSafeEqual } from "../../lib/crypto.ts";

/** The header of the node's OPTIONS answer that carries the codes. */
export const PROOF_HEADER = "X-Call-Shield-Proof";

const encoder = new TextEncoder();
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const proofKey = (secret: string) => derivedKey(secret, "whitelist-proof", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]);

export const newProofNonce = () => randomToken(16);

/** 16 Crockford base32 characters (80 bits) of HMAC(entry id, nonce). */
export async function proofCode(config: Pick<Config, "ENCRYPTION_KEY">, entryId: string, nonce: string): Promise<string> {
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", await proofKey(config.ENCRYPTION_KEY), encoder.encode(`${entryId}:${nonce}`)),
  );
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of mac.subarray(0, 10)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/**
 * Does what the customer entered hold the entry's code? It may be the header's whole value: an
 * address inside several claimed ranges gets one code per range, comma-separated, in any case.
 */
export async function proofMatches(
  config: Pick<Config, "ENCRYPTION_KEY">,
  entryId: string,
  nonce: string,
  typed: string,
): Promise<boolean> {
  const expected = encoder.encode(await proofCode(config, entryId, nonce));
  const candidates = typed
    .toUpperCase()
    .split(/[\s,;]+/)
    .map((c) => c.replace(/-/g, "").replace(/O/g, "0").replace(/[IL]/g, "1"))
    .filter(Boolean)
    .slice(0, 8);
  let matched = false;
  for (const candidate of candidates) matched = timingSafeEqual(encoder.encode(candidate), expected) || matched;
  return matched;
}
