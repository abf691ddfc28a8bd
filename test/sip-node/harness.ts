// The SIP node under test with real parts: the Worker under `wrangler dev` (local D1 and
// Durable Objects) for admission, the node in this process on loopback, and sipp as the peer
// on both sides. Each account calls from its own loopback address (127.0.0.x), since a
// whitelisted range belongs to one account only.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSipNodeConfig } from "../../sip-node/config.ts";
import { startSipNode, type SipNode } from "../../sip-node/node.ts";
import { workerClient } from "../../sip-node/control/worker-client.ts";
import { freeSipPort, freeTcpPort, freeUdpPort } from "../../scripts/lib/ports.mjs";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev.mjs";
import { pause, until } from "./wait.ts";

export { freeSipPort, freeUdpPort };

export { pause, until } from "./wait.ts";

const scenarios = new URL("./scenarios/", import.meta.url).pathname;

export type Stack = {
  api: string;
  /** Runs SQL on the Worker's local D1 (for states a test cannot reach through the API). */
  sql(statement: string): Promise<void>;
  nodeToken: string;
  node: SipNode;
  stop(): Promise<void>;
};

/**
 * `env` overrides the node's settings (e.g. a short RTP timeout for the media tests), `workerVars`
 * the Worker's (e.g. where transcription is served).
 */
export async function startStack(env: Record<string, string> = {}, workerVars: Record<string, string> = {}): Promise<Stack> {
  const state = mkdtempSync(join(tmpdir(), "sip-stack-"));
  // Every migration already applied: startWranglerDev's `migrations apply` then has nothing to do.
  const template = await migratedState();
  if (template) cpSync(template, state, { recursive: true });
  const secret = () => randomBytes(32).toString("base64url");
  const nodeToken = secret();
  const wrangler = await startWranglerDev({
    port: await freeTcpPort(),
    persistTo: state,
    stdio: "ignore",
    vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: nodeToken, SIGNUP_MAX_PER_IP: "1000", ...workerVars },
  });
  await wrangler.ready;
  const config = loadSipNodeConfig({
    NODE_TOKEN: nodeToken,
    WORKER_URL: wrangler.base,
    SIP_BIND: "127.0.0.1",
    SIP_PORT: String(await freeSipPort()),
    NODE_ID: "test-node",
    // Short, so the no-answer test does not wait the production 90 s.
    NO_ANSWER_SECONDS: "3",
    // Longer than any call of these tests that sends no RTP, shorter than a test can wait.
    RTP_TIMEOUT_SECONDS: "5",
    MEDIA_SPOOL_DIR: join(state, "spool"),
    RTP_PORT_MIN: String(30_000 + (process.pid % 100) * 200),
    RTP_PORT_MAX: String(30_000 + (process.pid % 100) * 200 + 199),
    ...env,
  });
  const node = await startSipNode(config, { whitelistPollMs: 200 });
  return {
    api: wrangler.base,
    sql: (statement) => d1(state, statement),
    nodeToken,
    node,
    async stop() {
      await node.stop();
      await wrangler.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

const root = new URL("../..", import.meta.url).pathname;
const wranglerEnv = () => ({ ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" });

/**
 * A local D1 state with every migration applied, made once per set of migrations (and
 * wrangler.toml) and kept in the temporary folder, for each stack to start from a copy: applying
 * them all takes wrangler 10 s or more, finding none to apply 2 s. Null when it cannot be made
 * (the stack then migrates as before).
 */
export async function migratedState(): Promise<string | null> {
  const hash = createHash("sha256");
  hash.update(readFileSync(join(root, "wrangler.toml")));
  const migrations = join(root, "schema/migrations");
  for (const name of readdirSync(migrations)
    .filter((n) => n.endsWith(".sql"))
    .sort()) {
    hash.update(name).update(readFileSync(join(migrations, name)));
  }
  const template = join(tmpdir(), `sip-stack-migrated-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(template)) return template;
  const building = mkdtempSync(join(tmpdir(), "sip-stack-migrating-"));
  const applied = await new Promise<boolean>((resolve) => {
    const child = spawn("wrangler", ["d1", "migrations", "apply", "DB", "--local", "--persist-to", building], {
      cwd: root,
      env: wranglerEnv(),
      stdio: "ignore",
    });
    child.on("error", () => resolve(false));
    child.on("exit", (code) => resolve(code === 0));
  });
  try {
    // Another test file may have made it meanwhile: either copy will do.
    if (applied && !existsSync(template)) renameSync(building, template);
  } catch {
    // made by another test file between the check and the rename
  }
  rmSync(building, { recursive: true, force: true });
  return existsSync(template) ? template : null;
}

export type TestAccount = {
  token: string;
  id: string;
  src: string;
  destination: any;
  call(path: string, init?: { method?: string; body?: unknown }): Promise<any>;
};

/**
 * Runs `statement` with `wrangler d1 execute`, again while the database is locked by the running
 * `wrangler dev` (SQLITE_BUSY: it is writing at that moment), for up to 20 s.
 */
async function d1(state: string, statement: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const err = await d1Once(state, statement);
    if (err === null) return;
    if (!/SQLITE_BUSY|database is locked/.test(err) || Date.now() > deadline) throw new Error(`d1: ${err}`);
    await pause(100);
  }
}

function d1Once(state: string, statement: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn("wrangler", ["d1", "execute", "DB", "--local", "--persist-to", state, "--command", statement], {
      env: wranglerEnv(),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => resolve(code === 0 ? null : err));
  });
}

let nextHost = 10;

/** An account calling from its own loopback address, with a destination at 127.0.0.1:`destinationPort`. */
export async function openAccount(
  stack: Stack,
  destinationPort: number,
  destinationExtra: Record<string, unknown> = {},
): Promise<TestAccount> {
  const src = `127.0.0.${nextHost++}`;
  const json = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
    const res = await fetch(`${stack.api}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { "content-type": "application/json", ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const signup = await json("/api/auth/signup", {
    body: { email: `sip-${randomBytes(6).toString("hex")}@carrier.test`, password: "sip test password 1" },
  });
  const token = signup.body.access_token as string;
  const destination = await json("/api/customer/destinations", {
    token,
    body: { host: "127.0.0.1", port: destinationPort, is_default: true, label: "sipp uas", ...destinationExtra },
  });
  if (destination.status !== 201) throw new Error(`destination: ${JSON.stringify(destination.body)}`);
  const entry = await json("/api/customer/ips", { token, body: { cidr: `${src}/32`, label: "sipp uac" } });
  if (entry.status !== 201) throw new Error(`whitelist: ${JSON.stringify(entry.body)}`);
  await stack.node.whitelist.refresh(workerClient({ url: stack.api, nodeToken: stack.nodeToken }));
  return {
    token,
    id: signup.body.customer.id,
    src,
    destination: destination.body,
    call: async (path, init = {}) => (await json(path, { ...init, token })).body,
  };
}

/**
 * After SQL a test ran on D1 directly (a plan, ports, a control): an API write that brings the
 * account's ledger up to date with D1 (syncAdmissionState), since admission reads the ledger alone.
 */
export async function syncLedger(account: TestAccount): Promise<void> {
  const updated = await account.call(`/api/customer/destinations/${account.destination.id}`, {
    method: "PATCH",
    body: { label: account.destination.label },
  });
  if (updated?.id !== account.destination.id) throw new Error(`ledger sync: ${JSON.stringify(updated)}`);
}

/** The account's latest call once its end has reached the Worker (the node reports it just after the last message). */
export async function endedCall(account: TestAccount): Promise<any> {
  return until(
    "the call's end at the Worker",
    async () => {
      const call = (await account.call("/api/calls")).items?.[0];
      return call && call.status !== "ringing" && call.status !== "active" && call;
    },
    10_000,
    100,
  ).catch(() => null);
}

export type SippResult = { code: number | null; output: string };

/** Runs one sipp call (or `-m N` calls) to completion (exit code 0: the scenario passed). */
export function sipp(args: string[], timeoutSec = 30): Promise<SippResult> {
  return spawnSipp(args, timeoutSec).done;
}

function spawnSipp(args: string[], timeoutSec: number): { child: ChildProcess; done: Promise<SippResult> } {
  // SIPP_TRACE=<folder> keeps every message each sipp saw, for debugging a scenario.
  const trace = process.env.SIPP_TRACE
    ? [
        "-trace_msg",
        "-message_file",
        `${process.env.SIPP_TRACE}/sipp-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}.log`,
      ]
    : [];
  const calls = args.includes("-m") ? [] : ["-m", "1"];
  const child = spawn(
    "sipp",
    [...calls, "-nostdin", "-timeout", `${timeoutSec}s`, "-timeout_error", "-max_recv_loops", "10", ...trace, ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const done = new Promise<SippResult>((resolve) => child.on("exit", (code) => resolve({ code, output: output.slice(-3000) })));
  return { child, done };
}

/** A sipp run that serves on a port: `await run` is its result, `await run.listening` waits until it can take a request. */
export type SippServer = Promise<SippResult> & {
  /** Settles once sipp's SIP socket is bound (UDP) or listening (TCP); rejects if sipp exits first or takes over 15 s. */
  listening: Promise<void>;
};

/** sipp with `args` (computed first when a promise), serving SIP on 127.0.0.1:`port`. */
export function sippServer(args: string[] | Promise<string[]>, port: number, tcp = false, timeoutSec = 30): SippServer {
  const started = Promise.resolve(args).then((list) => spawnSipp(list, timeoutSec));
  const done = started.then((run) => run.done);
  const listening = started.then((run) => listeningOn(run.child, port, tcp ? "tcp" : "udp", run.done));
  listening.catch(() => {}); // a test that never waits for it still gets sipp's result from `done`
  return Object.assign(done, { listening });
}

const PROC_NET = existsSync("/proc/net/udp");

/** The inodes of the sockets `pid` holds open (Linux), none when it has gone. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // the process has gone
  }
  return inodes;
}

/** Whether `pid` holds a UDP socket bound to `port` or a TCP socket listening on it, as /proc/net lists them. */
function holdsPort(pid: number, port: number, protocol: "udp" | "tcp"): boolean {
  const inodes = socketInodes(pid);
  if (inodes.size === 0) return false;
  const local = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  // st 07 (TCP_CLOSE) is a bound UDP socket; 0A is TCP_LISTEN.
  const state = protocol === "udp" ? "07" : "0A";
  for (const table of [protocol, `${protocol}6`]) {
    let text = "";
    try {
      text = readFileSync(`/proc/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(local) && fields[3] === state && inodes.has(fields[9]!)) return true;
    }
  }
  return false;
}

/**
 * Resolves once `child` (sipp) has its SIP socket on `port`, so a request sent from then on is
 * queued for it rather than refused or lost: read from /proc on Linux. Elsewhere it falls back on
 * the fixed 200 ms these tests used to wait, which a loaded machine could outlast.
 */
async function listeningOn(child: ChildProcess, port: number, protocol: "udp" | "tcp", done: Promise<SippResult>): Promise<void> {
  let result: SippResult | null = null;
  void done.then((r) => (result = r));
  if (!PROC_NET) return void (await pause(200));
  await until(
    `sipp to listen on ${protocol} ${port}`,
    () => {
      if (result) throw new Error(`sipp exited (${result.code}) before it listened on ${protocol} ${port}:\n${result.output}`);
      return child.pid !== undefined && holdsPort(child.pid, port, protocol);
    },
    15_000,
  );
}

/** A scenario file with its `__KEY__` placeholders filled in. */
function scenarioFile(scenario: string, fill: Record<string, string>): string {
  if (Object.keys(fill).length === 0) return join(scenarios, scenario);
  let xml = readFileSync(join(scenarios, scenario), "utf8");
  for (const [key, value] of Object.entries(fill)) xml = xml.replaceAll(`__${key}__`, value);
  const file = join(mkdtempSync(join(tmpdir(), "sipp-")), scenario);
  writeFileSync(file, xml);
  return file;
}

/** Where a sipp's RTP comes from (sipp's own default, 6000, would collide between instances). */
const mediaPort = async () => ["-mp", String(await freeUdpPort())];

/**
 * The UAS side: listens on `port` for `calls` calls with the given scenario (UDP, or TCP with
 * `tcp`). Send it nothing before `await callee.listening`.
 */
export const uas = (
  scenario: string,
  port: number,
  tcp = false,
  fill: Record<string, string> = {},
  calls = 1,
  extra: string[] = [],
): SippServer =>
  sippServer(
    mediaPort().then((media) => [
      "-sf",
      scenarioFile(scenario, fill),
      "-i",
      "127.0.0.1",
      "-p",
      String(port),
      "-m",
      String(calls),
      ...media,
      ...(tcp ? ["-t", "t1"] : []),
      ...extra,
    ]),
    port,
    tcp,
  );

/** The UAC side: one call from `src` to the node. */
export async function uac(
  stack: Stack,
  src: string,
  scenario: string,
  dialed = "14155550123",
  fill: Record<string, string> = {},
  tcp = false,
) {
  const file = scenarioFile(scenario, fill);
  return sipp([
    "-sf",
    file,
    "-i",
    src,
    "-p",
    "0",
    ...(await mediaPort()),
    "-s",
    dialed,
    ...(tcp ? ["-t", "t1"] : []),
    `127.0.0.1:${stack.node.port}`,
  ]);
}

/**
 * Sends raw bytes from `src` and collects whatever comes back within `waitMs`, or until `enough`
 * holds of the replies so far (a test waiting for an answer need not sit out the whole window).
 */
export function sendRaw(
  stack: Stack,
  src: string,
  payload: string,
  waitMs = 1_500,
  enough: (replies: string[]) => boolean = () => false,
): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = createSocket("udp4");
    const replies: string[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.close(() => resolve(replies));
    };
    socket.on("message", (m) => {
      replies.push(m.toString());
      if (enough(replies)) finish();
    });
    socket.bind(0, src, () => {
      socket.send(Buffer.from(payload.replace(/\r?\n/g, "\r\n")), stack.node.port, "127.0.0.1");
      timer = setTimeout(finish, waitMs);
    });
  });
}

/**
 * Waits until the node on 127.0.0.1:`port` answers an OPTIONS from `src`, that is until `src` is
 * on its whitelist (a source that is not gets silence): after a node starts or its whitelist changes.
 */
export async function answersFrom(port: number, src: string, timeoutMs = 10_000): Promise<void> {
  const peer = { node: { port } } as Stack;
  await until(
    `the node on ${port} to answer ${src}`,
    async () => {
      const id = randomBytes(6).toString("hex");
      const options = [
        `OPTIONS sip:127.0.0.1:${port} SIP/2.0`,
        `Via: SIP/2.0/UDP ${src}:5099;rport;branch=z9hG4bK-probe-${id}`,
        `From: <sip:probe@${src}>;tag=${id}`,
        `To: <sip:127.0.0.1:${port}>`,
        `Call-ID: probe-${id}`,
        "CSeq: 1 OPTIONS",
        "Max-Forwards: 70",
        "Content-Length: 0",
        "",
        "",
      ].join("\r\n");
      return (await sendRaw(peer, src, options, 250, (replies) => replies.length > 0)).length > 0;
    },
    timeoutMs,
    0,
  );
}
