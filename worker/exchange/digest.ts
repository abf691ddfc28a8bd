// HTTP Digest authentication per RFC 7616, server side, for the exchange API.
//
// Written here rather than taken from a package: the server-side Digest packages on npm
// (http-auth, passport-http, @mreal/digest-auth, http-auth-utils) implement RFC 2617 with MD5
// only, depend on Node's http/crypto or Passport, and (http-auth-utils) refuse the `userhash`
// parameter; none offers SHA-256 challenges, userhash, stateless nonces or Workers' WebCrypto.
//
// - A request without valid credentials gets 401 with two challenges, SHA-256 first, then MD5
//   (a client takes the first it supports), each with qop="auth", the realm, a nonce, an opaque
//   value and userhash=true (the client may send H(username:realm) instead of the name).
// - Nonces are stateless: issue time + 12 random bytes + an HMAC-SHA256 tag (key
//   EXCHANGE_NONCE_SECRET, else JWT_SECRET, domain-separated). After EXCHANGE_NONCE_TTL_SEC a
//   nonce is stale: a request whose digest is right for it gets 401 with stale=true, so the client
//   retries with the new nonce without asking for the password again.
// - The nonce count is single-use: the highest nc seen per nonce is kept in D1
//   (digest_nonce_counters, one conditional upsert, atomic under concurrency); a request whose nc
//   is not above it is a replay and gets 401 (stale=true: the client knows the key, a fresh nonce
//   fixes an honest race; a replayer learns nothing).
// - The password is the account's API key of the role the endpoint needs (buyer endpoints the
//   buyer key, seller endpoints the seller key; "any" tries the buyer key, then the seller key).
import type { Context, MiddlewareHandler } from "hono";
import { base64url, fromBase64url, timingSafeEqual } from "../lib/crypto.ts";
import type { Config } from "../env.ts";
import { accountByUserhash, accountByUsername, apiKeyOf, mayHoldKey, type ExchangeAccount } from "./accounts.ts";
import { exchangeDeps, type ExchangeEnv, type ExchangeRole } from "./context.ts";
import { hashHex, type DigestAlgorithm } from "./hash.ts";
import { enforceRateLimit } from "./limits.ts";
import { ExchangeError, forbidden } from "./respond.ts";

export const ALGORITHMS: readonly DigestAlgorithm[] = ["SHA-256", "MD5"];

const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// The computation (RFC 7616 section 3.4.1, qop=auth)

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

/** RFC 7616 section 3.4.4: the username a client sends with userhash=true. */
export const userhashOf = (algorithm: DigestAlgorithm, username: string, realm: string) => hashHex(algorithm, `${username}:${realm}`);

// ---------------------------------------------------------------------------------------------
// Parsing the Authorization header

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+/;

/** The auth-params of a "Digest ..." credential, names lower-cased; null when it is not Digest or is malformed. */
export function parseDigestCredentials(header: string): Map<string, string> | null {
  const scheme = /^\s*Digest\s+/i.exec(header);
  if (!scheme) return null;
  const s = header;
  const params = new Map<string, string>();
  let i = scheme[0].length;
  while (i < s.length) {
    while (i < s.length && (s[i] === "," || s[i] === " " || s[i] === "\t")) i++;
    if (i >= s.length) break;
    const name = TOKEN.exec(s.slice(i))?.[0];
    if (!name) return null;
    i += name.length;
    while (s[i] === " " || s[i] === "\t") i++;
    if (s[i] !== "=") return null;
    i++;
    while (s[i] === " " || s[i] === "\t") i++;
    let value = "";
    if (s[i] === '"') {
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === "\\" && i + 1 < s.length) i++;
        value += s[i];
        i++;
      }
      if (s[i] !== '"') return null;
      i++;
    } else {
      value = /^[^\s,]*/.exec(s.slice(i))![0];
      i += value.length;
    }
    const key = name.toLowerCase();
    if (params.has(key)) return null;
    params.set(key, value);
  }
  return params;
}

/** RFC 8187 ext-value (username*=UTF-8''J%C3%A4s%C3%B8n), as RFC 7616 section 3.4.4 allows for non-ASCII names. */
function decodeExtValue(value: string): string | null {
  const match = /^UTF-8'[^']*'(.*)$/i.exec(value);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Nonces and challenges

const NONCE_BYTES = 32; // 4 issue time (seconds) + 12 random + 16 tag
const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
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

// ---------------------------------------------------------------------------------------------
// Nonce counts (replay protection)

/**
 * Records nc for the nonce if it is above the highest seen; false when it is not (a replay).
 * One statement: concurrent requests with the same nc cannot both pass.
 */
export async function advanceNonceCount(db: D1Database, nonce: string, nc: number, expiresAt: string): Promise<boolean> {
  const row = await db
    .prepare(
      `INSERT INTO digest_nonce_counters (nonce, last_nc, expires_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (nonce) DO UPDATE SET last_nc = excluded.last_nc WHERE excluded.last_nc > digest_nonce_counters.last_nc
       RETURNING last_nc`,
    )
    .bind(nonce, nc, expiresAt)
    .first<{ last_nc: number }>();
  return row !== null;
}

/** Deletes counters of nonces that can no longer be used (run now and then, in the background). */
export async function sweepNonceCounters(db: D1Database, nowIso: string): Promise<void> {
  await db
    .prepare(
      "DELETE FROM digest_nonce_counters WHERE nonce IN (SELECT nonce FROM digest_nonce_counters WHERE expires_at < ?1 LIMIT 500)",
    )
    .bind(nowIso)
    .run();
}

// ---------------------------------------------------------------------------------------------
// Verification and the middleware

export type DigestOutcome =
  | { ok: true; account: ExchangeAccount; role: ExchangeRole }
  | { ok: false; message: string; stale?: boolean };

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
 * `alongside` runs for a correct answer at the same time as the nonce-count write (the rate
 * limits), its failure reported only when the count was fresh.
 */
export async function verifyDigest(
  deps: { db: ExchangeEnv["Variables"]["db"]; config: Config; env: ExchangeEnv["Bindings"] },
  request: { method: string; url: string; authorization: string | undefined },
  role: ExchangeRole | "any",
  alongside?: (account: ExchangeAccount) => Promise<void>,
): Promise<DigestOutcome> {
  const { config } = deps;
  if (!request.authorization || !/^\s*Digest\s/i.test(request.authorization)) return { ok: false, message: "authentication required" };
  const p = parseDigestCredentials(request.authorization);
  if (!p) return { ok: false, message: "malformed Digest credentials" };
  const algorithm = (p.get("algorithm") ?? "MD5").toUpperCase() as DigestAlgorithm;
  if (!ALGORITHMS.includes(algorithm)) return { ok: false, message: "unsupported Digest algorithm (use SHA-256 or MD5)" };
  const userhash = (p.get("userhash") ?? "false").toLowerCase() === "true";
  const extName = p.has("username*") ? decodeExtValue(p.get("username*")!) : null;
  const username = extName ?? p.get("username");
  const { realm, nonce, uri, response, cnonce, nc } = Object.fromEntries(p) as Record<string, string | undefined>;
  if (!username || !realm || !nonce || !uri || !response) return { ok: false, message: "incomplete Digest credentials" };
  if ((p.get("qop") ?? "").toLowerCase() !== "auth" || !cnonce || !nc || !/^[0-9a-fA-F]{8}$/.test(nc)) {
    return { ok: false, message: "Digest credentials need qop=auth with nc and cnonce" };
  }
  if (realm !== config.EXCHANGE_DIGEST_REALM) return { ok: false, message: "wrong realm" };
  const opaque = p.get("opaque");
  if (opaque !== undefined && opaque !== (await opaqueOf(config))) return { ok: false, message: "wrong opaque value" };
  if (!sameTarget(uri, new URL(request.url))) return { ok: false, message: "Digest uri does not match the request" };
  const state = await checkNonce(config, nonce);
  if (!state.valid) return { ok: false, message: "invalid nonce" };

  const account = userhash && !extName ? await accountByUserhash(deps, algorithm, username) : await accountByUsername(deps, username);
  if (!account) return { ok: false, message: "invalid credentials" };
  const roles: ExchangeRole[] = role === "any" ? ["buyer", "seller"] : [role];
  let matched: ExchangeRole | null = null;
  for (const keyRole of roles) {
    if (!mayHoldKey(account.role as ExchangeRole, keyRole)) continue;
    const key = await apiKeyOf(deps, account, keyRole);
    if (!key) continue;
    const expected = await digestResponse({
      algorithm,
      username: account.username,
      realm,
      password: key,
      method: request.method,
      uri,
      nonce,
      nc,
      cnonce,
      qop: "auth",
    });
    if (timingSafeEqual(encoder.encode(expected), encoder.encode(response.toLowerCase()))) {
      matched = keyRole;
      break;
    }
  }
  if (!matched) return { ok: false, message: "invalid credentials" };
  if (state.stale) return { ok: false, message: "nonce expired", stale: true };
  const expiresAt = new Date((state.issuedSec + config.EXCHANGE_NONCE_TTL_SEC + 60) * 1000).toISOString();
  const [fresh, side] = await Promise.allSettled([
    advanceNonceCount(deps.env.DB, nonce, parseInt(nc, 16), expiresAt),
    alongside ? alongside(account) : Promise.resolve(),
  ]);
  if (fresh.status === "rejected") throw fresh.reason;
  if (!fresh.value) return { ok: false, message: "nonce count already used", stale: true };
  if (side.status === "rejected") throw side.reason;
  return { ok: true, account, role: matched };
}

function inBackground(c: Context, work: Promise<unknown>): void {
  const guarded = work.catch((err) => console.error("exchange: background work failed", String(err)));
  try {
    c.executionCtx.waitUntil(guarded);
  } catch {
    // No execution context (a direct app.request in a test): let it run.
  }
}

/**
 * Authenticates the request with HTTP Digest (the key of `role`) and counts it against the
 * account's rate limits (while the nonce count is written). Sets c.var.exchange.
 */
export function digestAuth(role: ExchangeRole | "any"): MiddlewareHandler<ExchangeEnv> {
  return async (c, next) => {
    const deps = exchangeDeps(c);
    const request = { method: c.req.method, url: c.req.url, authorization: c.req.header("Authorization") };
    const outcome = await verifyDigest(deps, request, role, async (account) => {
      if (account.status === "active") await enforceRateLimit(deps, account);
    });
    if (!outcome.ok) throw await unauthorized(deps.config, outcome.message, outcome.stale);
    const { account } = outcome;
    if (account.status !== "active") throw forbidden("account suspended");
    if (Math.random() < 0.01) inBackground(c, sweepNonceCounters(c.env.DB, new Date().toISOString()));
    c.set("exchange", { iAccount: account.iAccount, username: account.username, role: outcome.role, accountRole: account.role as ExchangeRole });
    await next();
  };
}
