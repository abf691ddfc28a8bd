// bench/admission: the admission path of a call, through the Worker under `wrangler dev`.
//  - admissions: POST /internal/calls/admit from a whitelisted source, every one admitted, with
//    the account named as the SIP node names it (one AccountLedger call: entry, account, controls,
//    route, port and credit, the record to its outbox) and without (a D1 lookup of the source first);
//  - whitelist lookups: the same request from a source on no whitelist (answered "ignore");
//  - baseline: GET /api/health (one D1 query) on the same server, side by side.
// Run: npm run bench:admission
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load as loadWith, report as reportWith } from "../lib/load.mjs";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";

const DURATION_SEC = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const load = (label, base, request) => loadWith(label, base, request, { connections: CONNECTIONS, duration: DURATION_SEC });
const report = (results) => reportWith(results, { connections: CONNECTIONS, duration: DURATION_SEC });
const state = mkdtempSync(join(tmpdir(), "bench-admission-"));
const nodeToken = randomBytes(32).toString("base64url");
const secret = () => randomBytes(32).toString("base64url");

const server = await startWranglerDev({
  port: 8796,
  persistTo: state,
  stdio: process.env.BENCH_VERBOSE ? "inherit" : "ignore",
  vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: nodeToken, SIGNUP_MAX_PER_IP: "1000" },
});
try {
  await server.ready;
  const account = await prepareAccount(server.base);
  const results = [
    await load("GET /api/health (baseline)", server.base, { path: "/api/health" }),
    await load("admission (admitted, account named)", server.base, admitRequest("198.51.100.10", account.id)),
    await load("admission (admitted, no account named)", server.base, admitRequest("198.51.100.10")),
    await load("whitelist lookup (unknown source)", server.base, admitRequest("192.0.2.99")),
  ];
  report(results);
  // The records reach D1 through the call-records queue a moment after each admission.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  console.log(`\n  calls recorded in D1 for the bench account (through the call-records queue): ${account.calls()}`);
} finally {
  await server.stop();
  rmSync(state, { recursive: true, force: true });
}

/** As the SIP node sends it: with the account its whitelist copy names for the source, when it has one. */
function admitRequest(srcIp, customerId) {
  const request = {
    node_id: "bench",
    boot_id: "bench-boot",
    sip_call_id: "bench@bench",
    src_ip: srcIp,
    ani: "+14155550100",
    dialed: "14155550123",
  };
  return {
    path: "/internal/calls/admit",
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${nodeToken}` },
    body: JSON.stringify(customerId ? { ...request, customer_id: customerId } : request),
    expect: srcIp === "198.51.100.10" ? '"decision":"admit"' : '"decision":"ignore"',
  };
}

/** An account whose calls are never refused for ports or credit, so every admission does the whole path. */
async function prepareAccount(base) {
  const post = (path, body, token) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const signup = await post("/api/auth/signup", { email: `bench-${Date.now()}@bench.test`, password: "bench password 123" });
  const token = signup.body.access_token;
  const id = signup.body.customer.id;
  const destination = await post("/api/customer/destinations", { host: "sbc.bench.test", is_default: true }, token);
  const entry = await post("/api/customer/ips", { cidr: "198.51.100.0/24" }, token);
  if (destination.status !== 201 || entry.status !== 201) {
    throw new Error(`could not set the bench account up: ${JSON.stringify([destination, entry])}`);
  }
  d1(`INSERT INTO plans (code, name, monthly_fee_micros, ports, included_minutes, per_minute_rate_micros, min_billable_seconds, active, sort_order)
      VALUES ('bench-unmetered', 'Bench', 0, 1000000, NULL, 0, 60, 0, 99)`);
  d1(`UPDATE customers SET plan_code = 'bench-unmetered' WHERE id = '${id}'`);
  // Any write through the API hands the account's ledger its admission state again (the plan change went around it).
  const resaved = await fetch(`${base}/api/customer/destinations/${destination.body.id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ label: "Bench SBC" }),
  });
  if (resaved.status !== 200) throw new Error(`could not resave the bench destination: ${resaved.status}`);
  return { id, calls: () => d1(`SELECT COUNT(*) AS n FROM calls WHERE customer_id = '${id}'`).match(/"n":\s*(\d+)/)?.[1] };
}

function d1(sql) {
  const run = spawnSync("wrangler", ["d1", "execute", "DB", "--local", "--persist-to", state, "--json", "--command", sql], {
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (run.status !== 0) throw new Error(`d1: ${run.stderr}`);
  return run.stdout;
}
