// bench/exchange: Digest-authenticated exchange requests through the Worker under `wrangler dev`.
//  - baseline: GET /api/health (one D1 query) on the same server, side by side;
//  - balance: POST /exchange/buyers/balance (Digest check, rate limits, AccountLedger read);
//  - market search: POST /exchange/buyers/esim/market (country and data filter, paged);
//  - purchase: POST /exchange/buyers/esim/purchase (AccountLedger debit, ICCID, order, QR code).
// Each nonce is answered once and then used with nc counting up (one request in flight per nonce),
// as clients that keep a session do (curl run once per call does the 401 round trip every time:
// twice the requests). The bench accounts get limits high enough never to answer 429.
// Run: npm run bench:exchange  (BENCH_SECONDS=8 BENCH_CONNECTIONS=16 by default)
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load as loadWith, report as reportWith } from "../lib/load.mjs";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";

const DURATION_SEC = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const load = (label, base, request) => loadWith(label, base, request, { connections: CONNECTIONS, duration: DURATION_SEC });
const report = (results) => reportWith(results, { connections: CONNECTIONS, duration: DURATION_SEC });
const PORT = Number(process.env.BENCH_PORT ?? 8797);
const state = mkdtempSync(join(tmpdir(), "bench-exchange-"));
const secret = () => randomBytes(32).toString("base64url");
const adminToken = secret();

const server = await startWranglerDev({
  port: PORT,
  persistTo: state,
  stdio: process.env.BENCH_VERBOSE ? "inherit" : "ignore",
  vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: secret(), EXCHANGE_ADMIN_TOKEN: adminToken },
});
// A failure inside autocannon's callbacks is thrown outside this script's try: stop the server then too.
process.on("uncaughtException", (err) => {
  console.error(err);
  void server.stop().finally(() => {
    rmSync(state, { recursive: true, force: true });
    process.exit(1);
  });
});
try {
  await server.ready;
  const base = server.base;
  const buyer = await admin(base, "/accounts", {
    role: "buyer",
    balance: "1000000",
    per_second_cap: 1_000_000,
    hourly_quota: 1_000_000_000,
  });
  const seller = await admin(base, "/accounts", { role: "seller", per_second_cap: 1_000_000, hourly_quota: 1_000_000_000 });
  const esim = await prepareMarket(base, seller);

  const results = [await load("GET /api/health (baseline)", base, { path: "/api/health" })];
  results.push(await load("balance (Digest)", base, await digestScenario(base, buyer, "/exchange/buyers/balance", {})));
  if (esim) {
    results.push(
      await load(
        "market search (Digest)",
        base,
        await digestScenario(base, buyer, "/exchange/buyers/esim/market", { country: "FRANCE", data_GB: "5", pager: "20", off: "0" }),
      ),
    );
    results.push(
      await load(
        "purchase (Digest)",
        base,
        await digestScenario(base, buyer, "/exchange/buyers/esim/purchase", {
          i_account: String(buyer.i_account),
          i_esim_package: String(esim.iEsimPackage),
        }),
      ),
    );
  } else {
    console.log("  (no eSIM routes on this build: market search and purchase not measured)");
  }
  report(results);
  const after = await signed(base, buyer, "/exchange/buyers/balance", {});
  console.log(`\n  bench buyer balance after the purchases: ${after.balance} USD (from 1000000)`);
} finally {
  await server.stop();
  rmSync(state, { recursive: true, force: true });
}

async function admin(base, path, body) {
  const res = await fetch(`${base}/exchange/admin${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (json.status !== "success") throw new Error(`admin ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// ---- Digest, client side (RFC 7616, qop=auth), node:crypto ----
function H(algorithm, text) {
  return createHash(algorithm === "MD5" ? "md5" : "sha256")
    .update(text)
    .digest("hex");
}

async function challenge(base, path) {
  const res = await fetch(`${base}${path}`, { method: "POST" });
  await res.text();
  const header = res.headers.get("www-authenticate") ?? "";
  const first = header.split(/,\s*(?=Digest\s)/i)[0];
  const params = Object.fromEntries(
    [...first.matchAll(/([a-z]+)=(?:"([^"]*)"|([^\s,]*))/gi)].map((m) => [m[1].toLowerCase(), m[2] ?? m[3]]),
  );
  if (res.status !== 401 || !params.nonce) throw new Error(`no Digest challenge from ${path}: ${res.status}`);
  return params;
}

function authorization(account, path, chal, nc) {
  const algorithm = chal.algorithm;
  const ncHex = nc.toString(16).padStart(8, "0");
  const cnonce = randomBytes(8).toString("hex");
  const ha1 = H(algorithm, `${account.username}:${chal.realm}:${account.api_key}`);
  const ha2 = H(algorithm, `POST:${path}`);
  const response = H(algorithm, `${ha1}:${chal.nonce}:${ncHex}:${cnonce}:auth:${ha2}`);
  return `Digest username="${account.username}", realm="${chal.realm}", nonce="${chal.nonce}", uri="${path}", algorithm=${algorithm}, qop=auth, nc=${ncHex}, cnonce="${cnonce}", response="${response}", opaque="${chal.opaque}"`;
}

/** One Digest-authenticated POST (its own challenge), for set-up and checks. */
async function signed(base, account, path, form) {
  const chal = await challenge(base, path);
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: authorization(account, path, chal, 1), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A seller's package to search and buy; null when this build has no eSIM routes. */
async function prepareMarket(base, seller) {
  const probe = await fetch(`${base}/exchange/sellers/esim/packages/publish`, { method: "POST" });
  await probe.text();
  if (probe.status === 404) return null;
  const published = await signed(base, seller, "/exchange/sellers/esim/packages/publish", {
    name: "Bench France 5 GB",
    countries: "FRANCE",
    data_gb: "5",
    validity_days: "30",
    price: "1",
  });
  return { iEsimPackage: published.package.i_esim_package };
}

/**
 * A scenario over a pool of answered challenges: each request takes a nonce no other request in
 * flight holds and counts its nc up, so every nonce's counts reach the server in order.
 */
async function digestScenario(base, account, path, form) {
  const free = (await Promise.all(Array.from({ length: CONNECTIONS * 2 }, () => challenge(base, path)))).map((chal) => ({ chal, nc: 0 }));
  const body = new URLSearchParams(form).toString();
  return {
    path,
    method: "POST",
    body,
    expect: '"status":"success"',
    setupRequest: (req, context) => {
      const slot = free.pop();
      if (!slot) throw new Error("more requests in flight than nonces");
      slot.nc += 1;
      context.slot = slot;
      return {
        ...req,
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: authorization(account, path, slot.chal, slot.nc) },
      };
    },
    done: (context) => {
      if (context.slot) free.push(context.slot);
      context.slot = null;
    },
  };
}
