// The 401 of the Digest scheme: two WWW-Authenticate challenges, SHA-256 first, then MD5 (a
// client takes the first it supports), sharing one nonce, each with qop="auth", the realm, the
// opaque value and userhash=true (the client may send H(username:realm) instead of the name);
// stale=true when the client knew the key and only needs a fresh nonce.
//
// The MD5 challenge names no algorithm: MD5 is the RFC's default, so an MD5-only client still
// answers it, while a client that reads the two challenges as one field (the Workers runtime
// joins repeated headers with ", "; curl takes the last `algorithm=` of the field) finds only
// SHA-256. MD5 answers are accepted only from accounts that opted in (digest_md5).
import type { Config } from "../../env.ts";
import { ExchangeError } from "../respond.ts";
import { ALGORITHMS } from "./compute.ts";
import { issueNonce, opaqueOf } from "./nonce.ts";

/** The WWW-Authenticate values of a 401: SHA-256 first, then MD5, sharing one nonce. */
export async function challenges(config: Config, stale = false): Promise<string[]> {
  const [nonce, opaque] = await Promise.all([issueNonce(config), opaqueOf(config)]);
  return ALGORITHMS.map(
    (algorithm) =>
      `Digest realm="${config.EXCHANGE_DIGEST_REALM}", qop="auth", ${algorithm === "MD5" ? "" : `algorithm=${algorithm}, `}` +
      `nonce="${nonce}", opaque="${opaque}", userhash=true${stale ? ", stale=true" : ""}`,
  );
}

export async function unauthorized(config: Config, message: string, stale = false): Promise<ExchangeError> {
  return new ExchangeError(401, message, { "WWW-Authenticate": await challenges(config, stale) });
}
