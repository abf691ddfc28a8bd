// The 401 of the Digest scheme: two WWW-Authenticate challenges, SHA-256 first, then MD5 (a
// client takes the first it supports), sharing one nonce, each with qop="auth", the realm, the
// opaque value and userhash=true (the client may send H(username:realm) instead of the name);
// stale=true when the client knew the key and only needs a fresh nonce.
import type { Config } from "../../env.ts";
import { ExchangeError } from "../respond.ts";
import { ALGORITHMS } from "./compute.ts";
import { issueNonce, opaqueOf } from "./nonce.ts";

/** The WWW-Authenticate values of a 401: SHA-256 first, then MD5, sharing one nonce. */
export async function challenges(config: Config, stale = false): Promise<string[]> {
  const [nonce, opaque] = await Promise.all([issueNonce(config), opaqueOf(config)]);
  return ALGORITHMS.map(
    (algorithm) =>
      `Digest realm="${config.EXCHANGE_DIGEST_REALM}", qop="auth", algorithm=${algorithm}, nonce="${nonce}", ` +
      `opaque="${opaque}", userhash=true${stale ? ", stale=true" : ""}`,
  );
}

export async function unauthorized(config: Config, message: string, stale = false): Promise<ExchangeError> {
  return new ExchangeError(401, message, { "WWW-Authenticate": await challenges(config, stale) });
}
