// The HTTP Digest computation of RFC 7616, qop=auth: the response (section 3.4.1). The hashed
// username of userhash=true is the accounts' (worker/services/exchange/hash.ts).
import { hashHex, type DigestAlgorithm } from "../../services/exchange/hash.ts";

/** The algorithms the exchange offers, in the order of its challenges: SHA-256 first, then MD5. */
export const ALGORITHMS: readonly DigestAlgorithm[] = ["SHA-256", "MD5"];

export type DigestInput = {
  algorithm: DigestAlgorithm;
  username: string;
  realm: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  nc: string;
  cnonce: string;
  qop: "auth";
};

/** response = KD(H(A1), nonce:nc:cnonce:qop:H(A2)), A1 = username:realm:password, A2 = method:uri. */
export async function digestResponse(input: DigestInput): Promise<string> {
  const h = (text: string) => hashHex(input.algorithm, text);
  const [ha1, ha2] = await Promise.all([h(`${input.username}:${input.realm}:${input.password}`), h(`${input.method}:${input.uri}`)]);
  return h(`${ha1}:${input.nonce}:${input.nc}:${input.cnonce}:${input.qop}:${ha2}`);
}
