// HTTP Digest authentication per RFC 7616, server side, for the exchange API: the check of a
// request's credentials and the middleware that guards the v2 endpoints. The parts live beside
// this file: compute.ts (the response), header.ts (the Authorization header), nonce.ts
// (stateless nonces), challenge.ts (the 401's challenges), nonce-counters.ts (replays).
//
// - A request without valid credentials gets 401 with the challenges (challenge.ts).
// - A correct answer with a stale nonce gets 401 with stale=true, so the client retries with the
//   new nonce without asking for the password again.
// - A nonce count not above the highest seen for its nonce is a replay and gets 401 (stale=true:
//   the client knows the key, a fresh nonce fixes an honest race; a replayer learns nothing).
// - The password is the account's API key of the role the endpoint needs (buyer endpoints the
//   buyer key, seller endpoints the seller key; "any" tries the buyer key, then the seller key).
// - SHA-256 always; MD5 only for an account that opted in (digest_md5), else 401.
// - An unknown username costs what a known one does (a decoy key is decrypted and answered), and
//   the rate limits are counted only once the nonce count proved the request fresh: a replayed
//   header spends nothing of its victim's quota.
import type { MiddlewareHandler } from "hono";
import { Forbidden } from "../../services/errors.ts";
import {
  accountByUserhash,
  accountByUsername,
  decoyAccount,
  principalOf,
  provenKeyRole,
  type ExchangeAccount,
} from "../../services/exchange/accounts.ts";
import type { ExchangeRole, ExchangeServices } from "../../services/exchange/context.ts";
import { enforceRateLimit } from "../../services/exchange/limits.ts";
import { advanceNonceCount, counterExpiry } from "../../services/exchange/nonce-counters.ts";
import type { ExchangeEnv } from "../context.ts";
import { unauthorized } from "./challenge.ts";
import { digestResponse } from "./compute.ts";
import { readCredentials } from "./header.ts";
import { checkNonce, opaqueOf } from "./nonce.ts";

export type DigestOutcome = { ok: true; account: ExchangeAccount; role: ExchangeRole } | { ok: false; message: string; stale?: boolean };

/** The request-target the client signed must be this request's (origin form, or absolute form of the same path). */
function sameTarget(signed: string, url: URL): boolean {
  const target = url.pathname + url.search;
  if (signed === target) return true;
  if (/^https?:\/\//i.test(signed)) {
    try {
      const u = new URL(signed);
      return u.pathname + u.search === target;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Checks a Digest Authorization header for a request; `role` is the key the endpoint needs.
 * `alongside` (the rate limits) runs for a correct, fresh answer, after the nonce count is written.
 */
export async function verifyDigest(
  deps: Pick<ExchangeServices, "db" | "config">,
  request: { method: string; url: string; authorization: string | undefined },
  role: ExchangeRole | "any",
  alongside?: (account: ExchangeAccount) => Promise<void>,
): Promise<DigestOutcome> {
  const { config } = deps;
  const read = readCredentials(request.authorization);
  if (!read.ok) return read;
  const credentials = read.credentials;
  const { algorithm, username, realm, nonce, uri, nc, cnonce, opaque } = credentials;
  if (realm !== config.EXCHANGE_DIGEST_REALM) return { ok: false, message: "wrong realm" };
  if (opaque !== undefined && opaque !== (await opaqueOf(config))) return { ok: false, message: "wrong opaque value" };
  if (!sameTarget(uri, new URL(request.url))) return { ok: false, message: "Digest uri does not match the request" };
  const state = await checkNonce(config, nonce);
  if (!state.valid) return { ok: false, message: "invalid nonce" };

  const found = credentials.byUserhash ? await accountByUserhash(deps, algorithm, username) : await accountByUsername(deps, username);
  const account = found ?? (await decoyAccount(deps));
  const { method } = request;
  const matched = await provenKeyRole(deps, account, role, credentials.response, (password) =>
    digestResponse({ algorithm, username: account.username, realm, password, method, uri, nonce, nc, cnonce, qop: "auth" }),
  );
  if (!found || !matched) return { ok: false, message: "invalid credentials" };
  if (algorithm === "MD5" && !account.digestMd5) {
    return { ok: false, message: "MD5 is not enabled for this account: answer the SHA-256 challenge" };
  }
  if (state.stale) return { ok: false, message: "nonce expired", stale: true };
  if (!(await advanceNonceCount(deps.db, nonce, parseInt(nc, 16), counterExpiry(config, state.issuedSec)))) {
    return { ok: false, message: "nonce count already used", stale: true };
  }
  if (alongside) await alongside(account);
  return { ok: true, account, role: matched };
}

/**
 * Authenticates the request with HTTP Digest (the key of `role`) and counts it against the
 * account's rate limits (while the nonce count is written). Sets c.var.exchange.
 */
export function digestAuth(role: ExchangeRole | "any"): MiddlewareHandler<ExchangeEnv> {
  return async (c, next) => {
    const deps = c.var.services;
    const request = { method: c.req.method, url: c.req.url, authorization: c.req.header("Authorization") };
    const outcome = await verifyDigest(deps, request, role, async (account) => {
      if (account.status === "active") await enforceRateLimit(deps, account);
    });
    if (!outcome.ok) throw await unauthorized(deps.config, outcome.message, outcome.stale);
    const { account } = outcome;
    if (account.status !== "active") throw new Forbidden("account suspended");
    c.set("exchange", principalOf(account, outcome.role));
    await next();
  };
}
