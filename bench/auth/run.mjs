// bench/auth: what authentication costs.
//  1. One password verification (PBKDF2-SHA256, 100,000 iterations) inside workerd, against
//     the same derivation in Node's native crypto, run side by side.
//  2. Requests per second for GET /api/auth/me with a bearer token and with an API key,
//     against GET /api/health (no credential, one D1 query) on the same server.
// Run: npm run bench:auth
import { pbkdf2Sync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";

const DURATION_SEC = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const state = mkdtempSync(join(tmpdir(), "bench-auth-"));
const secret = () => randomBytes(32).toString("base64url");

const stdio = process.env.BENCH_VERBOSE ? "inherit" : "ignore";

// One wrangler dev at a time: two on one machine contend for the same local sockets.
await withServer(startWranglerDev({ port: 8798, config: "bench/auth/wrangler.toml", persistTo: state, stdio }), passwordCost);
await withServer(
  startWranglerDev({
    port: 8797,
    persistTo: state,
    stdio,
    vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: secret(), SIGNUP_MAX_PER_IP: "1000" },
  }),
  requestRates,
);
rmSync(state, { recursive: true, force: true });

async function withServer(starting, work) {
  const server = await starting;
  try {
    await server.ready;
    await work(server.base);
  } finally {
    await server.stop();
  }
}

async function timed(url) {
  const start = performance.now();
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  await res.text();
  return performance.now() - start;
}

async function passwordCost(base) {
  const N = 10;
  await timed(`${base}/?n=1`); // warm up: isolate, key import, stored hash
  const samples = [];
  for (let round = 0; round < 7; round++) {
    const empty = await timed(`${base}/?n=0`);
    const full = await timed(`${base}/?n=${N}`);
    samples.push((full - empty) / N);
  }
  const workerd = median(samples);
  const salt = randomBytes(16);
  const nodeSamples = [];
  for (let round = 0; round < 7; round++) {
    const start = performance.now();
    pbkdf2Sync("bench password 123", salt, 100_000, 32, "sha256");
    nodeSamples.push(performance.now() - start);
  }
  const node = median(nodeSamples);
  console.log("password verification, PBKDF2-SHA256 x 100,000 (median of 7)");
  console.log(`  workerd (our verifyPassword)   ${workerd.toFixed(1)} ms`);
  console.log(`  node crypto.pbkdf2Sync (base)  ${node.toFixed(1)} ms`);
  console.log(`  ratio workerd / node           ${(workerd / node).toFixed(2)}`);
}

async function requestRates(base) {
  const post = (path, body, headers = {}) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const signup = await post("/api/auth/signup", { email: `bench-${Date.now()}@bench.test`, password: "bench password 123" });
  const token = signup.access_token;
  const { key } = await post("/api/auth/api-keys", { name: "bench" }, { Authorization: `Bearer ${token}` });

  const run = async (label, path, headers) => {
    const result = await autocannon({ url: `${base}${path}`, headers, connections: CONNECTIONS, duration: DURATION_SEC });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { label, rps: result.requests.average, p99: result.latency.p99 };
  };
  const baseline = await run("GET /api/health (baseline)", "/api/health", {});
  const bearer = await run("GET /api/auth/me, bearer", "/api/auth/me", { Authorization: `Bearer ${token}` });
  const apiKey = await run("GET /api/auth/me, X-API-Key", "/api/auth/me", { "X-API-Key": key });
  console.log(`\nrequests per second, ${CONNECTIONS} connections, ${DURATION_SEC} s each, wrangler dev on this machine`);
  for (const r of [baseline, bearer, apiKey]) {
    console.log(
      `  ${r.label.padEnd(32)} ${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99} ms  ratio ${(r.rps / baseline.rps).toFixed(2)}`,
    );
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
