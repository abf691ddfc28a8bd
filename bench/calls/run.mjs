// bench/calls: issue 11's two figures, each beside its baseline in the same run.
//  1. GET /api/calls over one account with BENCH_CALLS calls (100,000) seeded straight into the
//     local D1 of a `wrangler dev`: p50 and p99 of each filter, one request at a time, against
//     GET /api/health on the same server; with the query plan D1's SQLite chose for each.
//  2. The pipeline's offline engines on generated recordings: calls per minute through the
//     transcriber (POST /v1/audio/transcriptions per channel) and the embedded analyser, against
//     reading the WAV files' bytes.
// Run: npm run bench:calls (BENCH_PART=list or BENCH_PART=pipeline for one half; see README.md)
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";
import { database } from "../../worker/lib/db.ts";
import { CallListQuery } from "../../worker/resources/call-list.ts";
import { callCountQuery, callListQuery } from "../../worker/services/calls/search.ts";
import { makeRecordings, speechToolsMissing, startTranscriber, timeAnalysis, timePipeline, timeReads, writtenInputs } from "./pipeline.mjs";
import { FACETS, writeSeed } from "./seed.mjs";

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const PART = process.env.BENCH_PART ?? "all";
const CALLS = env("BENCH_CALLS", 100_000);
const CASE_SECONDS = env("BENCH_SECONDS", 5);
const MIN_SAMPLES = env("BENCH_MIN_SAMPLES", 8);
const MAX_SAMPLES = env("BENCH_MAX_SAMPLES", 300);
const PORT = env("BENCH_PORT", 8795);
const RECORDINGS = env("BENCH_RECORDINGS", 3);
const RECORDING_SECONDS = env("BENCH_RECORDING_SECONDS", 30);
const TRANSCRIBER_PORT = env("BENCH_TRANSCRIBER_PORT", 8794);
const TRANSCRIBER_CONCURRENCY = env("BENCH_TRANSCRIBER_CONCURRENCY", 1);
const verbose = Boolean(process.env.BENCH_VERBOSE);
const root = new URL("../..", import.meta.url).pathname;
const state = mkdtempSync(join(tmpdir(), "bench-calls-"));

console.log(
  `bench/calls on ${new Date().toISOString().slice(0, 10)}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
try {
  if (PART === "all" || PART === "list") await listBench();
  if (PART === "all" || PART === "pipeline") await pipelineBench();
} finally {
  rmSync(state, { recursive: true, force: true });
}

async function listBench() {
  const secret = () => randomBytes(32).toString("base64url");
  const server = await startWranglerDev({
    port: PORT,
    persistTo: state,
    stdio: verbose ? "inherit" : "ignore",
    vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: secret() },
  });
  try {
    await server.ready;
    const signup = await fetch(`${server.base}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `bench-${Date.now()}@bench.test`, password: "bench password 123" }),
    }).then((r) => r.json());
    const token = signup.access_token;
    const customerId = signup.customer?.id;
    if (!token || !customerId) throw new Error(`signup failed: ${JSON.stringify(signup).slice(0, 200)}`);

    const seedDir = join(state, "seed");
    mkdirSync(seedDir);
    let started = performance.now();
    const seed = writeSeed({ dir: seedDir, customerId, calls: CALLS });
    const generated = (performance.now() - started) / 1000;
    started = performance.now();
    for (const file of seed.files) d1(["--file", file]);
    const c = seed.counts;
    console.log(
      `\nGET /api/calls over ${c.calls} calls of one account (${c.analyses} with a verdict and a transcript, ${c.entities} entity and ` +
        `${c.keywords} keyword rows): SQL written in ${generated.toFixed(1)} s, applied by wrangler d1 execute in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const weekFrom = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const weekTo = new Date(Date.now() - 23 * 86_400_000).toISOString().slice(0, 10);
    const cases = [
      ["no filter", ""],
      ["min_probability=70", "min_probability=70"],
      ["recommendation=block", "recommendation=block"],
      [`category=${FACETS.category}`, `category=${FACETS.category}`],
      [`from/to, one week`, `from=${weekFrom}&to=${weekTo}`],
      [`entity=${FACETS.entity}`, `entity=${FACETS.entity}`],
      [`keyword=${FACETS.keyword}`, `keyword=${encodeURIComponent(FACETS.keyword)}`],
      [`q=${FACETS.aniFragment} (ANI)`, `q=${FACETS.aniFragment}`],
      [`q=${FACETS.summaryWord} (summary word)`, `q=${FACETS.summaryWord}`],
      ["sort=-probability", "sort=-probability"],
      [`offset=${Math.floor(CALLS / 2)}`, `offset=${Math.floor(CALLS / 2)}`],
    ];
    const plans = queryPlans(customerId, cases);
    const headers = { authorization: `Bearer ${token}` };
    // The baseline is sampled between the requests it is compared with, so both see the same load.
    const health = [];
    const results = [];
    for (const [label, query] of cases)
      results.push(await sample(label, `${server.base}/api/calls?${query}`, headers, `${server.base}/api/health`, health));
    results.unshift(summarise("GET /api/health (baseline)", health, ""));
    printLatencies(results);
    console.log("\n  query plans (EXPLAIN QUERY PLAN in the local D1; the page, then its total):");
    for (const [label] of cases)
      console.log(`  ${label.padEnd(34)} page:  ${plans.get(label).list}\n  ${"".padEnd(34)} total: ${plans.get(label).count}`);
  } finally {
    await server.stop();
  }
}

function d1(args) {
  const run = spawnSync("wrangler", ["d1", "execute", "DB", "--local", "--persist-to", state, "--json", ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 256 << 20,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (run.status !== 0) throw new Error(`wrangler d1 execute: ${run.stderr || run.stdout}`);
  return run.stdout;
}

/** The plan of each case's page and total, as GET /api/calls builds them (call-search.ts), from one wrangler d1 execute. */
function queryPlans(customerId, cases) {
  const db = database(/** @type {never} */ ({}));
  const inline = ({ sql, params }) => {
    let i = 0;
    return sql.replace(/\?/g, () => {
      const v = params[i++];
      return typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
    });
  };
  const statements = cases.flatMap(([, query]) => {
    const input = CallListQuery.parse(Object.fromEntries(new URLSearchParams(query)));
    return [callListQuery(db, customerId, input), callCountQuery(db, customerId, input)].map(
      (q) => `EXPLAIN QUERY PLAN ${inline(q.toSQL())}`,
    );
  });
  const answers = JSON.parse(d1(["--command", statements.join(";\n")]));
  const plan = (answer) => answer.results.map((r) => r.detail).join("; ");
  return new Map(cases.map(([label], i) => [label, { list: plan(answers[2 * i]), count: plan(answers[2 * i + 1]) }]));
}

/**
 * One request at a time for CASE_SECONDS (between MIN_SAMPLES and MAX_SAMPLES requests), after two
 * unmeasured ones; each preceded by a health request, whose time goes to `health`.
 */
async function sample(label, url, headers, healthUrl, health) {
  const once = async (target, retry = true) => {
    const t = performance.now();
    // A keep-alive connection left idle (while seeding) may have been closed by the server: try once more.
    const res = await fetch(target, { headers }).catch((err) => (retry ? null : Promise.reject(err)));
    if (!res) return once(target, false);
    const body = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${body.slice(0, 200)}`);
    return { ms, body };
  };
  const first = await once(url);
  await once(url);
  const times = [];
  const started = performance.now();
  while (times.length < MAX_SAMPLES && (times.length < MIN_SAMPLES || performance.now() - started < CASE_SECONDS * 1000)) {
    health.push((await once(healthUrl)).ms);
    times.push((await once(url)).ms);
  }
  return summarise(label, times, /"total":(\d+)/.exec(first.body)?.[1] ?? "");
}

function summarise(label, times, total) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { label, n: sorted.length, p50: at(0.5), p99: at(0.99), total };
}

function printLatencies(results) {
  const [base] = results;
  console.log(`  one request at a time, ${CASE_SECONDS} s or at least ${MIN_SAMPLES} requests each, each after a health request;`);
  console.log("  ratio = this p50 (p99) / health's p50 (p99), health over the whole run");
  console.log(
    `  ${"request".padEnd(36)} ${"matches".padStart(7)} ${"n".padStart(4)} ${"p50".padStart(9)} ${"p99".padStart(9)}   ratio p50   ratio p99`,
  );
  for (const r of results) {
    console.log(
      `  ${r.label.padEnd(36)} ${String(r.total).padStart(7)} ${String(r.n).padStart(4)} ${ms(r.p50)} ${ms(r.p99)}   ${ratio(r.p50 / base.p50)}   ${ratio(r.p99 / base.p99)}`,
    );
  }
}

function ms(v) {
  return `${v < 10 ? v.toFixed(1) : v.toFixed(0)} ms`.padStart(9);
}

function ratio(v) {
  return (v < 10 ? v.toFixed(2) : v.toFixed(0)).padStart(9);
}

async function pipelineBench() {
  const missing = speechToolsMissing();
  if (missing.length) {
    console.log(`\npipeline: ${missing.join(" and ")} missing (Debian packages): no recordings can be made; skipped`);
    return;
  }
  const dir = join(state, "recordings");
  mkdirSync(dir);
  const recordings = makeRecordings(dir, RECORDINGS, RECORDING_SECONDS);
  const speech = recordings.reduce((s, r) => s + r.speechSeconds, 0);
  console.log(
    `\npipeline: ${RECORDINGS} recordings of ${RECORDING_SECONDS} s (stereo 8 kHz 16-bit, espeak-ng speech on one side at a time, ` +
      `${speech.toFixed(0)} s of speech in all), one call after another`,
  );
  const reads = timeReads(recordings);
  const rows = [{ label: "read the WAV bytes (baseline)", perMinute: (reads.calls / reads.seconds) * 60, note: `${reads.calls} reads` }];

  const transcriber = await startTranscriber({ port: TRANSCRIBER_PORT, concurrency: TRANSCRIBER_CONCURRENCY, verbose });
  let heard = null;
  try {
    if (transcriber.error) {
      console.log(
        `  the transcriber did not start (${transcriber.error}): transcription is not measured, the analyser reads the written conversations`,
      );
    } else {
      console.log(
        `  transcriber: ${transcriber.health.engine}, model ${transcriber.health.model}, TRANSCRIBER_CONCURRENCY=${TRANSCRIBER_CONCURRENCY}`,
      );
      heard = await timePipeline(recordings, transcriber.base);
    }
  } finally {
    await transcriber.stop();
  }
  if (heard) {
    const sum = (key) => heard.reduce((s, c) => s + c[key], 0);
    rows.push({
      label: "transcription, 2 channels per call",
      perMinute: (heard.length / sum("transcribe")) * 60,
      note: `${(sum("transcribe") / heard.length).toFixed(1)} s per ${RECORDING_SECONDS} s call, ${((heard.length * RECORDING_SECONDS) / sum("transcribe")).toFixed(2)}x real-time speed`,
    });
    const analysis = await timeAnalysis(
      heard.map((c) => ({ text: c.transcript.text, segments: c.transcript.segments, language: c.transcript.language, call: c.facts })),
    );
    rows.push({
      label: "embedded analyser, heard transcripts",
      perMinute: (analysis.calls / analysis.seconds) * 60,
      note: `${analysis.calls} analyses`,
    });
  }
  const written = await timeAnalysis(writtenInputs(recordings));
  rows.push({
    label: "embedded analyser, written transcripts",
    perMinute: (written.calls / written.seconds) * 60,
    note: `${written.calls} analyses`,
  });
  if (heard) {
    const total = heard.reduce((s, c) => s + c.total, 0);
    rows.push({
      label: "pipeline: read + transcribe + analyse",
      perMinute: (heard.length / total) * 60,
      note: `${heard.length} calls in ${total.toFixed(1)} s`,
    });
  }
  console.log(`  ${"stage".padEnd(40)} ${"calls/min".padStart(11)}   ratio to baseline`);
  for (const r of rows)
    console.log(
      `  ${r.label.padEnd(40)} ${fmt(r.perMinute).padStart(11)}   ${(r.perMinute / rows[0].perMinute).toPrecision(3).padStart(9)}   (${r.note})`,
    );
  if (heard) {
    const writtenVerdicts = await verdictsOf(writtenInputs(recordings));
    console.log("  verdicts, heard (from the transcriber) against written (the conversation's own text):");
    heard.forEach((c, i) => {
      const w = writtenVerdicts[i];
      console.log(
        `    ${c.id.padEnd(30)} ${c.label.padEnd(5)} heard ${c.verdict.probability}% ${c.verdict.category}; written ${w.probability}% ${w.category}`,
      );
    });
  }
}

async function verdictsOf(inputs) {
  const { EmbeddedAnalyser } = await import("../../worker/providers/analysis/embedded.ts");
  const analyser = new EmbeddedAnalyser();
  return Promise.all(inputs.map(async (input) => (await analyser.analyse(input)).verdict));
}

function fmt(v) {
  return v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2);
}
