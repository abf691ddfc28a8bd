// bench/sip: the same sipp call (INVITE, 180, 200, ACK, 1 s, BYE) run three ways in one run:
// sipp to sipp directly, through Kamailio as a stateful proxy (one worker), and through our
// SIP node (one process) with the Worker's real admission under wrangler dev. For each it
// finds the highest clean call rate (no failed call over BENCH_CALLS calls) from the rates
// tried, and the post-dial delay (INVITE to 180) p50/p99 at that rate.
// Run: npm run bench:sip   (as root the first time: it installs sip-tester and kamailio)
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";

const here = new URL(".", import.meta.url).pathname;
const root = new URL("../..", import.meta.url).pathname;
const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const RATES = (process.env.BENCH_RATES ?? "50,100,200,400,600,800,1000,1200").split(",").map(Number);
// A call that connects only after seconds of retransmissions is not clean either.
const MAX_PDD_P99_MS = Number(process.env.BENCH_MAX_PDD_MS ?? 1000);

// BENCH_ONLY=ours runs only our node (for trying lower rates without the long baseline runs).
const ONLY = process.env.BENCH_ONLY;

ensureTools();
const results = [];
if (!ONLY) {
  results.push(await bench("direct (sipp to sipp)", async (uasPort) => ({ port: uasPort, stop: async () => {} })));
  results.push(await bench("Kamailio stateful proxy, 1 worker", startKamailio));
}
results.push(await bench("our SIP node, 1 process, real admission", startOurNode));
if (!ONLY) report();

function ensureTools() {
  const missing = ["sipp:sip-tester", "kamailio:kamailio"].filter((t) => spawnSync("which", [t.split(":")[0]]).status !== 0);
  if (missing.length === 0) return;
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", ...missing.map((t) => t.split(":")[1])], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
}

async function bench(label, startTarget) {
  const uasPort = await freeTcpPort();
  const target = await startTarget(uasPort);
  let best = null;
  try {
    for (const rate of RATES) {
      const run = await load(target.port, uasPort, rate);
      const verdict = run.clean ? "clean" : `not clean (${run.failed} failed calls, PDD p99 ${run.p99} ms; ceiling ${MAX_PDD_P99_MS} ms)`;
      console.log(`  ${label}: ${rate} calls/s ${verdict}, PDD p50 ${run.p50} ms p99 ${run.p99} ms`);
      if (!run.clean) break;
      best = { rate, ...run };
    }
  } finally {
    await target.stop();
  }
  return { label, best };
}

/** One load step: a fresh UAS, then CALLS calls at `rate`; clean when sipp's exit code says every call passed. */
async function load(targetPort, uasPort, rate) {
  const dir = mkdtempSync(join(tmpdir(), "bench-sip-"));
  const uas = spawn("sipp", ["-sf", join(here, "uas-bench.xml"), "-i", "127.0.0.1", "-p", String(uasPort), "-nostdin", "-bg"], {
    cwd: dir,
    stdio: "ignore",
  });
  await new Promise((r) => uas.on("exit", r));
  await new Promise((r) => setTimeout(r, 300));
  const uac = spawnSync(
    "sipp",
    [
      "-sf",
      join(here, "uac-bench.xml"),
      "-i",
      "127.0.0.1",
      "-p",
      "0",
      "-s",
      "14155550123",
      "-r",
      String(rate),
      "-m",
      String(CALLS),
      "-nostdin",
      "-timeout",
      "120s",
      "-trace_rtt",
      "-rtt_freq",
      "1",
      "-trace_stat",
      `127.0.0.1:${targetPort}`,
    ],
    { cwd: dir, encoding: "utf8" },
  );
  spawnSync("pkill", ["-f", `uas-bench.xml -i 127.0.0.1 -p ${uasPort} `]);
  const rtts = readdirSync(dir)
    .filter((f) => f.endsWith("_rtt.csv"))
    .flatMap((f) =>
      readFileSync(join(dir, f), "utf8")
        .split("\n")
        .slice(1)
        .map((l) => Number(l.split(";")[1]))
        .filter((n) => Number.isFinite(n) && n > 0),
    );
  const stat = readdirSync(dir).find((f) => f.endsWith("_.csv"));
  const failed = stat ? Number(readFileSync(join(dir, stat), "utf8").trim().split("\n").pop().split(";")[16] ?? "NaN") : NaN;
  rmSync(dir, { recursive: true, force: true });
  const p99 = percentile(rtts, 99);
  return { clean: uac.status === 0 && p99 <= MAX_PDD_P99_MS, failed, p50: percentile(rtts, 50), p99 };
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2));
}

async function startKamailio(uasPort) {
  const port = await freeTcpPort();
  const child = spawn(
    "kamailio",
    ["-f", join(here, "kamailio.cfg"), "-l", `udp:127.0.0.1:${port}`, "-n", "1", "-DD", "-E", "-A", `UAS_ADDR=127.0.0.1:${uasPort}`],
    { stdio: "ignore" },
  );
  await new Promise((r) => setTimeout(r, 1500));
  return { port, stop: () => stopChild(child) };
}

async function startOurNode(uasPort) {
  const state = mkdtempSync(join(tmpdir(), "bench-sip-state-"));
  const secret = () => randomBytes(32).toString("base64url");
  const nodeToken = secret();
  const api = await startWranglerDev({
    port: await freeTcpPort(),
    persistTo: state,
    stdio: "ignore",
    vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: nodeToken, SIGNUP_MAX_PER_IP: "1000" },
  });
  await api.ready;
  const post = (path, body, token) =>
    fetch(`${api.base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const signup = await post("/api/auth/signup", { email: `bench-${Date.now()}@bench.test`, password: "bench password 123" });
  const destination = await post("/api/customer/destinations", { host: "127.0.0.1", port: uasPort, is_default: true }, signup.access_token);
  await post("/api/customer/ips", { cidr: "127.0.0.1/32" }, signup.access_token);
  // Unmetered, with ports to spare: the bench measures signalling, not the credit limit.
  const d1 = (sql) =>
    spawnSync("wrangler", ["d1", "execute", "DB", "--local", "--persist-to", state, "--command", sql], {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
    });
  d1(
    "INSERT INTO plans (code, name, monthly_fee_micros, ports, per_minute_rate_micros, min_billable_seconds, active, sort_order) VALUES ('bench', 'Bench', 0, 100000, 0, 60, 0, 99)",
  );
  d1(`UPDATE customers SET plan_code = 'bench' WHERE id = '${signup.customer.id}'`);
  // Any write through the API hands the account's call ledger its admission state again (the plan change went around it).
  await fetch(`${api.base}/api/customer/destinations/${destination.id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json", authorization: `Bearer ${signup.access_token}` },
    body: JSON.stringify({ label: "Bench UAS" }),
  });
  const port = await freeTcpPort();
  const node = spawn(process.execPath, [join(root, "sip-node/main.ts")], {
    // Its own spool: a run never uploads what an earlier one left.
    env: {
      ...process.env,
      WORKER_URL: api.base,
      NODE_TOKEN: nodeToken,
      SIP_BIND: "127.0.0.1",
      SIP_PORT: String(port),
      MEDIA_SPOOL_DIR: join(state, "spool"),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await new Promise((r) => setTimeout(r, 1500));
  return {
    port,
    stop: async () => {
      await stopChild(node);
      await api.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

function report() {
  const direct = results[0].best;
  const kamailio = results[1].best;
  const ours = results[2].best;
  console.log(
    `\nhighest clean call rate over ${CALLS} calls (no failed call, PDD p99 under ${MAX_PDD_P99_MS} ms; rates tried: ${RATES.join(", ")}), PDD = INVITE to 180`,
  );
  for (const { label, best } of results) {
    const added =
      best && direct ? ` (added p50 ${(best.p50 - direct.p50).toFixed(2)} ms, p99 ${(best.p99 - direct.p99).toFixed(2)} ms)` : "";
    console.log(
      `  ${label.padEnd(42)} ${best ? `${best.rate} calls/s  PDD p50 ${best.p50} ms  p99 ${best.p99} ms${added}` : "none clean"}`,
    );
  }
  if (kamailio && ours) console.log(`  ratio ours / Kamailio (1 worker each): ${(ours.rate / kamailio.rate).toFixed(2)}`);
}
