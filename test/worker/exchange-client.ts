// A client of the exchange API for the Workers tests, written like a real one and separately
// from the server's code: accounts are made through the admin endpoint, and digestRequest does
// the HTTP Digest round trip (an unauthenticated request, the 401 challenge, the answer).
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export const ORIGIN = "https://exchange.test";
export const PREFIX = "/exchange";
export const LEGACY_PREFIX = "/exchange/v1";

export type ExchangeAccount = { iAccount: number; username: string; apiKey: string; role: "buyer" | "seller" };
export type Reply<T = any> = { status: number; body: T; headers: Headers };
export type Form = Record<string, string | number | undefined>;

let counter = 0;

async function send(method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const res = await exports.default.fetch(new Request(url, { method, headers: init.headers, body: init.body }));
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  return { status: res.status, body: type.includes("json") && text ? JSON.parse(text) : text, headers: res.headers };
}

/** POST to the admin endpoints with the operator token (EXCHANGE_ADMIN_TOKEN, a secret of its own). */
export function admin(path: string, body: Record<string, unknown>, token = env.EXCHANGE_ADMIN_TOKEN as string) {
  return send("POST", `${ORIGIN}${PREFIX}/admin${path}`, {
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

export type AccountOptions = {
  username?: string;
  /** Per-account limits; the tests' accounts get generous ones unless a test says (null: the platform default). */
  perSecondCap?: number | null;
  hourlyQuota?: number | null;
  /** Accept Digest answers computed with MD5 (off by default). */
  digestMd5?: boolean;
};

/** A new exchange account with an API key of its role and an opening balance (USD). */
export async function exchangeAccount(
  role: "buyer" | "seller",
  balanceUsd: number | string = 0,
  options: AccountOptions = {},
): Promise<ExchangeAccount> {
  const limits = (name: string, value: number | null | undefined, fallback: number) =>
    value === null ? {} : { [name]: value ?? fallback };
  const res = await admin("/accounts", {
    role,
    balance: String(balanceUsd),
    username: options.username ?? `${role}-${Date.now().toString(36)}-${++counter}`,
    ...limits("per_second_cap", options.perSecondCap, 1000),
    ...limits("hourly_quota", options.hourlyQuota, 1_000_000),
    ...(options.digestMd5 ? { digest_md5: "1" } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { iAccount: res.body.i_account, username: res.body.username, apiKey: res.body.api_key, role };
}

/** A further key for an account (a seller's buyer key), or a rotated one. */
export async function rotateKey(account: Pick<ExchangeAccount, "iAccount">, role: "buyer" | "seller"): Promise<string> {
  const res = await admin(`/accounts/${account.iAccount}/keys`, { role });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.api_key;
}

// ---------------------------------------------------------------------------------------------
// Digest, client side (RFC 7616)

export type Challenge = Record<string, string>;

/** Every Digest challenge of a 401, in order (the Headers API joins repeated headers with ", "). */
export function challengesOf(headers: Headers): Challenge[] {
  const header = headers.get("www-authenticate") ?? "";
  return header
    .split(/,\s*(?=Digest\s)/i)
    .filter((part) => /^\s*Digest\s/i.test(part))
    .map((part) => {
      const params: Challenge = {};
      const re = /([A-Za-z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
      for (const m of part.replace(/^\s*Digest\s+/i, "").matchAll(re)) params[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? "";
      // RFC 7616 section 3.3: a challenge without `algorithm` is MD5.
      params.algorithm ??= "MD5";
      return params;
    });
}

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
export const H = async (algorithm: string, text: string) =>
  hex(await crypto.subtle.digest(algorithm.toUpperCase() === "MD5" ? "MD5" : "SHA-256", new TextEncoder().encode(text)));

export type DigestOptions = {
  algorithm?: "SHA-256" | "MD5";
  userhash?: boolean;
  /** The password to answer with (a wrong key, or the account's other key). */
  key?: string;
  nc?: number;
  cnonce?: string;
  /** More request headers (an Idempotency-Key). */
  headers?: Record<string, string>;
};

/** The Authorization header answering a challenge. */
export async function authorization(
  account: Pick<ExchangeAccount, "username" | "apiKey">,
  method: string,
  uri: string,
  challenge: Challenge,
  options: DigestOptions = {},
) {
  const algorithm = options.algorithm ?? challenge.algorithm ?? "MD5";
  const nc = (options.nc ?? 1).toString(16).padStart(8, "0");
  const cnonce = options.cnonce ?? crypto.randomUUID().replace(/-/g, "");
  const realm = challenge.realm!;
  const ha1 = await H(algorithm, `${account.username}:${realm}:${options.key ?? account.apiKey}`);
  const ha2 = await H(algorithm, `${method}:${uri}`);
  const response = await H(algorithm, `${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`);
  const username = options.userhash ? await H(algorithm, `${account.username}:${realm}`) : account.username;
  return (
    `Digest username="${username}", realm="${realm}", nonce="${challenge.nonce}", uri="${uri}", ` +
    `algorithm=${algorithm}, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"` +
    (challenge.opaque ? `, opaque="${challenge.opaque}"` : "") +
    (options.userhash ? ", userhash=true" : "")
  );
}

/** The request as a client builds it: form fields in the query on GET, form-encoded on POST. */
export function buildRequest(method: string, path: string, form?: Form) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form ?? {})) if (v !== undefined) params.append(k, String(v));
  const query = method === "GET" && [...params].length ? `?${params}` : "";
  const uri = `${path}${query}`;
  const body = method === "GET" || form === undefined ? undefined : params.toString();
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" };
  return { uri, body, headers };
}

/** Sends a request with the given headers (no authentication unless they carry it). */
export function rawRequest(method: string, path: string, form?: Form, headers: Record<string, string> = {}) {
  const req = buildRequest(method, path, form);
  return send(method, `${ORIGIN}${req.uri}`, { headers: { ...req.headers, ...headers }, body: req.body });
}

/** The first 401's challenge for a request (the unauthenticated first leg of every Digest exchange). */
export async function challengeFor(method: string, path: string, form?: Form, pick: "SHA-256" | "MD5" = "SHA-256"): Promise<Challenge> {
  const first = await rawRequest(method, path, form);
  expect(first.status, JSON.stringify(first.body)).toBe(401);
  const challenge = challengesOf(first.headers).find((c) => c.algorithm === pick);
  expect(challenge, first.headers.get("www-authenticate") ?? "no challenge").toBeDefined();
  return challenge!;
}

/**
 * A Digest-authenticated request, round trip included: the unauthenticated request, the 401's
 * challenge of the chosen algorithm (SHA-256 by default, the server's first), the answer.
 * `path` is the full path, e.g. "/exchange/buyers/balance".
 */
export async function digestRequest(
  account: Pick<ExchangeAccount, "username" | "apiKey">,
  method: string,
  path: string,
  form?: Form,
  options: DigestOptions = {},
): Promise<Reply & { challenge: Challenge }> {
  const challenge = await challengeFor(method, path, form, options.algorithm ?? "SHA-256");
  const req = buildRequest(method, path, form);
  const auth = await authorization(account, method, req.uri, challenge, { ...options, algorithm: options.algorithm ?? "SHA-256" });
  const reply = await send(method, `${ORIGIN}${req.uri}`, {
    headers: { ...req.headers, ...options.headers, authorization: auth },
    body: req.body,
  });
  return { ...reply, challenge };
}

/** Shorthands: `buyer(account).post("/buyers/esim/market", {country: "FRANCE"})`, paths relative to the prefix. */
export function exchangeClient(account: Pick<ExchangeAccount, "username" | "apiKey">, options: DigestOptions = {}) {
  return {
    get: (path: string, form?: Form) => digestRequest(account, "GET", `${PREFIX}${path}`, form, options),
    post: (path: string, form?: Form) => digestRequest(account, "POST", `${PREFIX}${path}`, form, options),
  };
}

// ---------------------------------------------------------------------------------------------
// Legacy v1 signature

export async function legacySignature(controller: string, apiKey: string, apiLogin: string, ts: string | number) {
  return H("SHA-256", `${controller}${apiKey}${apiLogin}${ts}`);
}

const lastLegacyTs = new Map<string, number>();

/** Now, or the second after the last call's `ts`: a signature is good once, so a second call in a second takes the next one. */
export function nextLegacyTs(key: string): number {
  const ts = Math.max(Math.floor(Date.now() / 1000), (lastLegacyTs.get(key) ?? 0) + 1);
  lastLegacyTs.set(key, ts);
  return ts;
}

/** POST <legacy prefix>/<controller>.php with api_login, ts, signature and webapi=1 (each overridable). */
export async function legacyRequest(
  account: Pick<ExchangeAccount, "username" | "apiKey">,
  controller: string,
  form: Form = {},
  options: { ts?: number; key?: string; method?: "GET" | "POST" } = {},
) {
  const ts = options.ts ?? nextLegacyTs(`${account.username}/${controller}`);
  const signature = await legacySignature(controller, options.key ?? account.apiKey, account.username, ts);
  return rawRequest(options.method ?? "POST", `${LEGACY_PREFIX}/${controller}.php`, {
    api_login: account.username,
    ts,
    signature,
    webapi: 1,
    ...form,
  });
}
