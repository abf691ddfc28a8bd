// bench/media: the most concurrent G.711 calls one relay process carries with under 0.1% of the
// packets lost (or later than 200 ms), two ways in one run, each relay its own child process
// (relay-child.ts) fed by the same load generator (generator.mjs, another process):
//  1. bare: a Node UDP relay, per call two port pairs, each datagram forwarded as-is;
//  2. ours: MediaRelay with processing "full": each packet checked, measured (loss, jitter),
//     watched for DTMF, recorded to a stereo WAV, captured to two pcaps, its header kept
//     continuous, in a temporary spool folder.
// With BENCH_ONLY=...,dialer (and dialer711): web dialer calls, browser-like WebRTC clients
// (browser-generator.ts) bridged by sip-node/webrtc/ into "full" MediaRelays, in the same run.
// Each step opens N calls, starts them over 3 s, warms up, then measures over BENCH_SECONDS:
// packets sent and received back, their delay, the relay's own CPU time and event-loop use.
// The ramp stops at the first step that is not clean; the last clean one is the ceiling.
// Run: npm run bench:media   (env: BENCH_STEPS, BENCH_SECONDS, BENCH_ONLY=bare|ours, see README)
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const here = new URL(".", import.meta.url).pathname;
const STEPS = (process.env.BENCH_STEPS ?? "300,600,800,900,1000,1100,1200,1300,1400,1600").split(",").map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// The generator starts the calls over BENCH_RAMP_SECONDS (3 s); the window opens after the warm-up.
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 5);
const GENERATORS = Number(process.env.BENCH_GENERATORS ?? 1);
const MAX_LOSS_PCT = 0.1;
// A packet this late is as good as lost to the phone's jitter buffer: it counts as lost.
const LATE_MS = Number(process.env.BENCH_LATE_MS ?? 200);
// Packets of the window still in flight after it may arrive during this grace; later ones are lost.
const GRACE_MS = 500;
// Below this share of the packets due, the generator fell behind: the step measured it, not the relay.
const MIN_OFFERED_PCT = 99.5;
const PACKETS_PER_SECOND = 50;
const TARGET_CALLS = 300;
// BENCH_ONLY=bare, ours (or plain, rec, cap: MediaRelay with less processing), comma-separated.
const ONLY = process.env.BENCH_ONLY;
// BENCH_RELAY_ARGS: Node options for the relay child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const RELAY_ARGS = (process.env.BENCH_RELAY_ARGS ?? "").split(" ").filter(Boolean);

const pct = (value) => `${value.toFixed(0)}%`;
const ms = (value) => `${value.toFixed(1)}ms`;
const COLUMNS = [
  ["system", 6, (r) => r.system],
  ["calls", 5, (r) => r.calls],
  ["loss %", 6, (r) => r.lossPct.toFixed(3)],
  ["p50", 6, (r) => ms(r.delayP50)],
  ["p99", 7, (r) => ms(r.delayP99)],
  ["max", 6, (r) => (r.delayMax >= 1000 ? ">1s" : ms(r.delayMax))],
  ["CPU", 5, (r) => pct(r.relayCpuPct)],
  ["loop", 5, (r) => pct(r.relayLoopPct)],
  ["us/pkt", 6, (r) => r.usPerPacket.toFixed(1)],
  ["ms/call-s", 9, (r) => r.msPerCallSecond.toFixed(2)],
  ["RSS", 6, (r) => `${r.relayRssMB.toFixed(0)}MB`],
  ["gen CPU", 7, (r) => pct(r.generatorCpuPct)],
  ["loop", 5, (r) => pct(r.generatorLoopPct)],
  ["sent", 6, (r) => `${r.offeredPct.toFixed(1)}%`],
  ["machine", 7, (r) => pct(r.machinePct)],
  ["others", 6, (r) => pct(r.othersPct)],
  ["drops", 5, (r) => r.udpRcvbufErrors],
  ["files", 6, (r) => `${r.recordedMB.toFixed(0)}MB`],
  ["", 0, (r) => r.verdict],
];

const SYSTEMS = [
  { key: "bare", label: "bare Node UDP relay", mode: "bare" },
  { key: "ours", label: "MediaRelay, record + capture", mode: "full" },
  // Not run by default: MediaRelay with less processing, to see what each part costs.
  { key: "plain", label: "MediaRelay, no record or capture", mode: "none", extra: true },
  { key: "rec", label: "MediaRelay, record only", mode: "record", extra: true },
  { key: "cap", label: "MediaRelay, capture only", mode: "capture", extra: true },
  // Web dialer calls: browser-like WebRTC clients (werift) on the caller side, bridged by
  // sip-node/webrtc/ (SRTP, Opus to and from G.711) into MediaRelay with record + capture.
  {
    key: "dialer",
    label: "dialer: WebRTC bridge + MediaRelay",
    mode: "dialer",
    extra: true,
    generator: "browser-generator.ts",
    steps: (process.env.BENCH_DIALER_STEPS ?? "10,20,30,40,50,60,80,100").split(",").map(Number),
  },
  // The same with browsers that offer only PCMU: SRTP without transcoding, to see what Opus costs.
  {
    key: "dialer711",
    label: "dialer, PCMU browsers (no transcoding)",
    mode: "dialer",
    extra: true,
    generator: "browser-generator.ts",
    generatorArgs: ["PCMU"],
    steps: (process.env.BENCH_DIALER_STEPS ?? "10,20,30,40,50,60,80,100").split(",").map(Number),
  },
];
const systems = SYSTEMS.filter((s) => (ONLY ? ONLY.split(",").includes(s.key) : !s.extra));

console.log(
  `bench/media: G.711 calls (50 packets/s each way) through one relay process; ${SECONDS} s windows after ${WARMUP_SECONDS} s warm-up;` +
    ` clean = under ${MAX_LOSS_PCT}% of packets lost or later than ${LATE_MS} ms; steps ${STEPS.join(", ")}`,
);
console.log(`  ${"".padEnd(13)}${"| delay through relay".padEnd(22)}| ${"relay process".padEnd(38)}| generator ${"".padEnd(10)}| machine`);
console.log(`  ${header()}`);
const results = [];
for (const system of systems) results.push({ system, rows: await ramp(system) });
report();

async function ramp(system) {
  const stdio = ["ignore", "inherit", "inherit", "ipc"];
  const relay = await start(fork(`${here}relay-child.ts`, [system.mode], { execArgv: RELAY_ARGS, stdio }));
  const generators = [];
  for (let i = 0; i < GENERATORS; i++)
    generators.push(
      await start(fork(`${here}${system.generator ?? "generator.mjs"}`, system.generatorArgs ?? [], { execArgv: [], stdio })),
    );
  const rows = [];
  try {
    for (const calls of system.steps ?? STEPS) {
      const row = { system: system.key, calls, ...(await step(relay, generators, calls)) };
      rows.push(row);
      console.log(`  ${format(row)}`);
      if (!row.clean) break;
    }
  } finally {
    for (const child of [relay, ...generators]) await stop(child);
  }
  return rows;
}

/** One load step: N calls up, warm-up, a measured window, then everything closed. */
async function step(relay, generators, calls) {
  const shares = generators.map((_, i) => Math.floor(calls / generators.length) + (i < calls % generators.length ? 1 : 0));
  const bound = await Promise.all(generators.map((g, i) => request(g, { type: "bind", calls: shares[i] })));
  const opened = await request(relay, { type: "open", peers: bound.flatMap((b) => b.ports) });
  let first = 0;
  await Promise.all(generators.map((g, i) => request(g, { type: "start", targets: opened.ports.slice(first, (first += shares[i])) })));
  await sleep(WARMUP_SECONDS * 1000);

  const machineBefore = machineCpu();
  const udpBefore = udpCounters();
  const mark = () => Promise.all([request(relay, { type: "mark" }), ...generators.map((g) => request(g, { type: "mark" }))]);
  await mark();
  await sleep(SECONDS * 1000);
  const [relayWindow, ...generatorWindows] = await mark();
  const machinePct = machineCpu(machineBefore);
  const udp = udpCounters(udpBefore);
  await sleep(GRACE_MS);
  const stopped = await Promise.all(generators.map((g) => request(g, { type: "stop" })));
  const closed = await request(relay, { type: "close" });

  const sent = sum(generatorWindows.map((w) => w.sent));
  const received = sum(stopped.map((s) => s.received));
  const delays = stopped[0].delays.map((_, i) => sum(stopped.map((s) => s.delays[i])));
  const bucketsPerMs = (delays.length - 1) / 1000;
  const late = sum(delays.slice(Math.floor(LATE_MS * bucketsPerMs)));
  const lossPct = sent > 0 ? (100 * (sent - received + late)) / sent : 100;
  const generatorSeconds = sum(generatorWindows.map((w) => w.wallUs)) / generatorWindows.length / 1e6;
  const offeredPct = (100 * sent) / (2 * calls * PACKETS_PER_SECOND * generatorSeconds);
  const verdict = lossPct >= MAX_LOSS_PCT ? "lossy" : offeredPct < MIN_OFFERED_PCT ? "generator behind" : "clean";
  const relayCpuPct = (100 * relayWindow.cpuUs) / relayWindow.wallUs;
  const generatorCpuPcts = generatorWindows.map((w) => (100 * w.cpuUs) / w.wallUs);
  return {
    clean: verdict === "clean",
    verdict,
    lossPct,
    delayP50: percentile(delays, 50) / bucketsPerMs,
    delayP99: percentile(delays, 99) / bucketsPerMs,
    delayMax: (delays.findLastIndex((n) => n > 0) + 1) / bucketsPerMs,
    relayCpuPct,
    relayLoopPct: 100 * relayWindow.loopBusy,
    usPerPacket: relayWindow.cpuUs / relayWindow.packets,
    msPerCallSecond: relayWindow.cpuUs / 1000 / (calls * (relayWindow.wallUs / 1e6)),
    relayRssMB: relayWindow.rssBytes / 1e6,
    generatorCpuPct: Math.max(...generatorCpuPcts),
    generatorLoopPct: Math.max(...generatorWindows.map((w) => 100 * w.loopBusy)),
    offeredPct,
    machinePct,
    othersPct: machinePct - relayCpuPct - sum(generatorCpuPcts),
    udpRcvbufErrors: udp.RcvbufErrors,
    recordedMB: (closed.wavBytes + closed.pcapBytes) / 1e6,
  };
}

function header() {
  return COLUMNS.map(([name, width], i) => (i === 0 ? name.padEnd(width) : name.padStart(width))).join(" ");
}

function format(r) {
  return COLUMNS.map(([, width, value], i) => (i === 0 ? String(value(r)).padEnd(width) : String(value(r)).padStart(width))).join(" ");
}

function report() {
  console.log(`
  loss: packets sent in the window that did not come back, or came back more than ${LATE_MS} ms late; delay: send to return,
  through the relay and both processes' event loops. Relay: CPU (user + system, all threads) in % of one core, event loop
  busy, CPU per packet relayed (one in, one out) and per call-second, memory. Generator: its CPU and event loop (the busiest
  generator), the share of the packets due that it sent. Machine: both cores busy (/proc/stat; 200% = all), of which
  others = neither relay nor generator. drops: the kernel's UDP receive-buffer overflows (any socket). files: WAV + pcaps.`);
  const ceilings = {};
  for (const { system, rows } of results) {
    const best = rows.filter((r) => r.clean).at(-1);
    const next = rows.find((r) => !r.clean);
    ceilings[system.key] = { best, next };
    const at = best
      ? `${best.calls} calls (relay ${pct(best.relayCpuPct)} of a core, loop ${pct(best.relayLoopPct)} busy, delay p99 ${ms(best.delayP99)})`
      : "no clean step";
    const beyond = !next
      ? `; every step tried was clean, so at least that`
      : next.verdict === "lossy"
        ? `; at ${next.calls}: ${next.lossPct.toFixed(3)}% lost or late`
        : `; at ${next.calls} the generator sent only ${next.offeredPct.toFixed(1)}% of the packets due: a bound of the generator and the machine, not of this relay`;
    console.log(`  ${system.label.padEnd(34)} ceiling ${at}${beyond}`);
  }
  const bare = ceilings.bare?.best;
  const ours = ceilings.ours?.best;
  if (bare && ours) {
    const bareIsLowerBound = ceilings.bare.next?.verdict !== "lossy";
    console.log(
      `  ratio ours / bare (ceilings): ${(ours.calls / bare.calls).toFixed(2)}${bareIsLowerBound ? " (at most: the bare relay's ceiling was not reached)" : ""}`,
    );
  }
  // CPU per call compared at the same load: per-packet cost falls as a busy loop reads more per wake-up.
  const common =
    results.length > 1 ? STEPS.filter((n) => results.every(({ rows }) => rows.some((r) => r.calls === n && r.clean))).at(-1) : undefined;
  if (common) {
    const cost = Object.fromEntries(results.map(({ system, rows }) => [system.key, rows.find((r) => r.calls === common)]));
    const line = results.map(
      ({ system }) =>
        `${system.key} ${cost[system.key].msPerCallSecond.toFixed(2)} ms (${(1000 / cost[system.key].msPerCallSecond).toFixed(0)} calls per core)`,
    );
    const ratio = cost.ours && cost.bare ? `; ours / bare ${(cost.ours.msPerCallSecond / cost.bare.msPerCallSecond).toFixed(2)}` : "";
    console.log(`  CPU per call-second at ${common} calls: ${line.join(", ")}${ratio}`);
  }
  // The dialer rows against ours: ceilings, and CPU per call-second (dialer at its ceiling, ours
  // at its clean step nearest that number of calls: CPU per call falls as the load grows).
  const oursRows = (results.find(({ system }) => system.key === "ours")?.rows ?? []).filter((r) => r.clean);
  for (const key of ["dialer", "dialer711"]) {
    const dialer = ceilings[key]?.best;
    if (!dialer || !ours || oursRows.length === 0) continue;
    const distance = (r) => Math.abs(r.calls - dialer.calls);
    const oursCost = oursRows.reduce((best, r) => (distance(r) < distance(best) ? r : best));
    console.log(
      `  ${key} / ours (ceilings): ${dialer.calls} / ${ours.calls} = ${(dialer.calls / ours.calls).toFixed(3)};` +
        ` CPU per call-second: ${key} ${dialer.msPerCallSecond.toFixed(2)} ms at ${dialer.calls} calls (${(1000 / dialer.msPerCallSecond).toFixed(0)} calls per core),` +
        ` ours ${oursCost.msPerCallSecond.toFixed(2)} ms at ${oursCost.calls}; ${key} / ours ${(dialer.msPerCallSecond / oursCost.msPerCallSecond).toFixed(1)}`,
    );
  }
  if (ours)
    console.log(
      `  target: ${TARGET_CALLS} recorded calls per process: ${ours.calls >= TARGET_CALLS ? "met" : "NOT met"} (${ours.calls} clean)`,
    );
}

/** Waits for a forked child's "ready"; from then on, a child that dies ends the bench. */
function start(child) {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bench child exited early (${code})`)));
    child.once("message", () => {
      child.removeAllListeners("exit");
      child.on("exit", (code) => {
        if (code !== 0 && !child.stopping) {
          console.error(`bench child ${child.pid} exited with ${code}`);
          process.exit(1);
        }
      });
      resolve(child);
    });
  });
}

/** Sends a message and waits for the child's answer (each child answers in order). */
function request(child, message) {
  return new Promise((resolve) => {
    child.once("message", resolve);
    child.send(message);
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.stopping = true;
    child.once("exit", resolve);
    child.disconnect();
  });
}

/** Busy time of the whole machine since `before`, in % of one core (so 200% is both cores of two). */
function machineCpu(before) {
  const lines = readFileSync("/proc/stat", "utf8").split("\n");
  const fields = lines[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + fields[4];
  const total = sum(fields.slice(0, 8));
  if (!before) return { idle, total };
  const cores = lines.filter((l) => /^cpu\d/.test(l)).length;
  return 100 * cores * (1 - (idle - before.idle) / (total - before.total));
}

/** The kernel's UDP counters (/proc/net/snmp), or their change since `before`. */
function udpCounters(before) {
  const lines = readFileSync("/proc/net/snmp", "utf8")
    .split("\n")
    .filter((l) => l.startsWith("Udp:"));
  const names = lines[0].split(/\s+/).slice(1);
  const values = lines[1].split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(names.map((n, i) => [n, values[i] - (before?.[n] ?? 0)]));
}

/** The upper edge of the bucket holding the p-th percentile, in buckets. */
function percentile(histogram, p) {
  const total = sum(histogram);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen >= (p / 100) * total) return i + 1;
  }
  return histogram.length;
}

function sum(values) {
  return values.reduce((a, b) => a + b, 0);
}
