// `npm start`: the whole service on this machine. Applies the D1 migrations (which seed
// the plans and AI tiers), starts the offline transcriber (unless TRANSCRIPTION_URL names another
// OpenAI-compatible one), `wrangler dev` with local D1, R2, Queues and Durable Objects, then the
// SIP node, creates the demo account and prints its credentials. Ctrl-C stops everything.
// LOCAL_STATE_DIR puts local D1, R2 and the demo credentials in another folder than .wrangler/
// (an empty one is a first start on a fresh machine, as the e2e tests run it).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { digestClient } from "./lib/digest-client.mjs";
import { startLocalPhone } from "./lib/local-phone.mjs";
import { startWranglerDev } from "./lib/wrangler-dev.mjs";

const root = new URL("..", import.meta.url).pathname;
/** Local D1, R2, Queues and Durable Objects (in state/) and the demo accounts' credentials. */
const STATE_DIR = (process.env.LOCAL_STATE_DIR ?? `${root}.wrangler`).replace(/\/$/, "");
const API_HOST = process.env.API_HOST ?? "127.0.0.1";
const API_PORT = Number(process.env.API_PORT ?? 8787);
const SIP_HOST = process.env.SIP_HOST ?? "127.0.0.1";
const SIP_PORT = Number(process.env.SIP_PORT ?? 5060);
/** The web dialer's SIP over WebSocket listener: plain ws on loopback, wss with SIP_WS_CERT_FILE and SIP_WS_KEY_FILE. */
const SIP_WS_PORT = Number(process.env.SIP_WS_PORT ?? 5066);
const SIP_WSS = Boolean(process.env.SIP_WS_CERT_FILE && process.env.SIP_WS_KEY_FILE);
const SIP_WS = SIP_WSS || SIP_HOST === "localhost" || SIP_HOST === "::1" || /^127\./.test(SIP_HOST);
/** The hosted-number listener of CLI checks (the node's own SIP port for calls to numbers the platform holds). */
const CLI_LISTEN_PORT = Number(process.env.CLI_LISTEN_PORT ?? 5090);
const TRANSCRIBER_PORT = Number(process.env.TRANSCRIBER_PORT ?? 8786);
/** An OpenAI-compatible speech-to-text service of the operator's own (e.g. a Whisper server), up to /v1. */
const TRANSCRIPTION_URL = process.env.TRANSCRIPTION_URL;
/** The offline transcriber's exit code when its engine is not installed. */
const ENGINE_MISSING = 3;

// Local runs keep the per-e-mail login limit but lift the per-address ones and signup out of a
// scripted suite's reach; the local mail view is served only while the API listens on loopback, and
// only then may webhooks and alert channels post to a receiver on this machine (http to loopback;
// private ranges stay refused).
const LOOPBACK = API_HOST === "localhost" || API_HOST === "::1" || /^127\./.test(API_HOST);
const LOCAL_VARS = {
  SIGNUP_MAX_PER_IP: "1000",
  SIGNUP_WINDOW_SEC: "60",
  LOGIN_IP_MAX_FAILURES: "100000",
  LOGIN_IP_MAX_ATTEMPTS: "1000000",
  // MCP clients (the Inspector) register an OAuth client on each connection: 30 an hour is a few runs.
  OAUTH_REGISTER_MAX_PER_IP: "100000",
  INGRESS_HOST: SIP_HOST,
  // Where the node listens: what /customer/network-info tells a carrier to send its calls to.
  INGRESS_PORT: String(SIP_PORT),
  // Where hosted numbers forward a check's call: the node's hosted-number listener.
  CLI_LISTENER_URI: `sip:${SIP_HOST.includes(":") ? `[${SIP_HOST}]` : SIP_HOST}:${CLI_LISTEN_PORT}`,
  // The numbers the local platform holds for CLI checks (ranges set aside for drama and tests): a
  // destination at the listener's address delivers a check's call to them, as a route would.
  CLI_NUMBERS: "GB=+442079460000,US=+12025550143",
  ...(SIP_WS ? { DIALER_WS_URL: `${SIP_WSS ? "wss" : "ws"}://${SIP_HOST.includes(":") ? `[${SIP_HOST}]` : SIP_HOST}:${SIP_WS_PORT}` } : {}),
  ...(LOOPBACK ? { LOCAL_MAIL_VIEW: "true", PAYMENTS_PROVIDER: "local", OUTBOUND_ALLOW_LOOPBACK: "true" } : {}),
};

ensureDevVars();
const services = [];
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(0));
const watch = (service) =>
  service.child.on("exit", (code, signal) => {
    if (stopping) return;
    console.error(`a service exited (${signal ?? code}); stopping`);
    void stop(1);
  });

const transcription = await startTranscription();
// The platform's verification route: a local phone that prints the code a verification call speaks.
const phone = await startLocalPhone();
services.push({ stop: phone.stop });
const api = await startWranglerDev({
  host: API_HOST,
  port: API_PORT,
  vars: { ...LOCAL_VARS, ...transcription.vars, VERIFY_ROUTE: `sip:127.0.0.1:${phone.port}` },
  ...(process.env.LOCAL_STATE_DIR ? { persistTo: `${STATE_DIR}/state` } : {}),
});
services.push(api);
watch(api);
try {
  await api.ready;
} catch (err) {
  console.error(String(err));
  await stop(1);
}
const base = api.base;
// The SIP node asks this Worker for admission; it starts once the API answers.
services.push(startSipNode(base));
watch(services.at(-1));
const demo = await demoAccount(base);
if (SIP_WS) await enableDemoDialer(base, demo);
const exchange = await demoExchange(base);
console.log(`
  Portal     ${portalUrl(base)}   (the fraud desk: calls, verdicts, live calls, cases, test calls)
  API        ${base}/api   (explorer: ${base}/api/docs)
  Demo login ${demo.email} / ${demo.password}
  MCP        ${base}/api/mcp   (agents: OAuth from ${base}/.well-known/oauth-protected-resource/api/mcp; scripts: X-API-Key)
  Exchange   ${base}/exchange   (legacy v1: ${base}/exchange/v1/<controller>.php, HTTP Digest: curl --digest -u user:key)
  Demo buyer ${exchange.buyer.username} / ${exchange.buyer.api_key}   (i_account ${exchange.buyer.i_account}, ${exchange.offered.balance ?? "?"} USD)
  Demo seller ${exchange.seller.username} / ${exchange.seller.api_key}   (i_account ${exchange.seller.i_account})
  Exchange quick flow (the demo seller's market: ${exchange.offered.destinations ?? 0} destinations; README "Exchange quick flow"):${exchange.offered.problem ? `\n    NOT READY: ${exchange.offered.problem}` : ""}
    curl --digest -u ${exchange.buyer.username}:${exchange.buyer.api_key} ${base}/exchange/buyers/esim/countries
    curl --digest -u ${exchange.buyer.username}:${exchange.buyer.api_key} -d country=FRANCE -d data_GB=5 ${base}/exchange/buyers/esim/market
    curl --digest -u ${exchange.buyer.username}:${exchange.buyer.api_key} -H 'Idempotency-Key: "order-1"' -d i_account=${exchange.buyer.i_account} -d i_esim_package=<i_esim_package> ${base}/exchange/buyers/esim/purchase
  IoT history (the demo buyer's devices: ${exchange.offered.iotEvents ?? 0} events; devices send theirs to ${base}/exchange/iot/events):
    curl --digest -u ${exchange.buyer.username}:${exchange.buyer.api_key} -d 'date_from=2000-01-01 00:00:00' -d 'date_to=2100-01-01 00:00:00' ${base}/exchange/buyers/iothistory
  SIP        udp and tcp ${SIP_HOST}:${SIP_PORT}   (whitelist your source address in the portal first)
  CLI checks the hosted-number listener on udp and tcp ${SIP_HOST}:${CLI_LISTEN_PORT}   (calls to numbers the platform holds)
  Verified numbers: verification calls ring a local phone on sip:127.0.0.1:${phone.port}, which prints the code it hears${SIP_WS ? `\n  Web dialer ${base}/dialer   (over ${SIP_WSS ? "wss" : "ws"}://${SIP_HOST}:${SIP_WS_PORT}; on for the demo account)` : ""}
  Transcription ${transcription.note}${LOOPBACK ? `\n  Mail       ${base}/dev/mail   (or npm run mail; kept in the local outbox, nothing is sent)` : ""}
  Ctrl-C stops everything.
`);

/** The portal's address: on loopback by the name localhost, as passkeys need a domain for their relying party. */
function portalUrl(base) {
  const url = new URL(base);
  if (LOOPBACK) url.hostname = "localhost";
  return `${url.origin}/app`;
}

/** Stops every service (each stops its own children: wrangler stops workerd), then exits. */
async function stop(code) {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), 10_000).unref();
  await Promise.all(services.map((s) => s.stop()));
  process.exit(code);
}

/**
 * The demo exchange buyer (100 USD) and seller, made with `npm run exchange` on first start, kept
 * beside the demo account; then the seller publishes the demo market (`npm run exchange --
 * seed-market`) and the buyer's devices record a demo IoT history (`seed-iot`), each once: `market`
 * and `iot` in the file record them, and what failed is tried again on the next start. Then the
 * seeding is checked as a buyer finds it (`offered`): the demo seller's destinations on the market,
 * the buyer's balance and IoT events, and `problem` when the market is not there.
 */
async function demoExchange(base) {
  const path = `${STATE_DIR}/demo-exchange.json`;
  const run = (what, args, env = {}) => {
    const child = spawnSync(process.execPath, [`${root}scripts/exchange.mjs`, ...args], {
      env: { ...process.env, EXCHANGE_URL: `${base}/exchange`, ...env },
      encoding: "utf8",
    });
    const last = child.stdout.trim().split("\n").pop() ?? "";
    if (child.status === 0 && last.startsWith("{")) return JSON.parse(last);
    console.error(`could not ${what}: ${child.stderr.trim()}`);
    return undefined;
  };
  const create = (role, ...args) =>
    run(`create the demo exchange ${role}`, ["create-account", "--role", role, "--username", `demo-${role}`, ...args]) ?? {
      i_account: "?",
      username: `demo-${role}`,
      api_key: `(unknown: delete ${STATE_DIR}/ to start afresh)`,
    };
  const save = (accounts) => {
    mkdirSync(STATE_DIR, { recursive: true });
    writeFileSync(path, JSON.stringify(accounts), { mode: 0o600 });
  };
  let accounts = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
  if (!accounts) {
    // The seller publishes some 300 offers at once: a per-second cap above the default 10.
    accounts = { buyer: create("buyer", "--balance", "100"), seller: create("seller", "--per-second-cap", "100") };
    if (accounts.buyer.i_account === "?" || accounts.seller.i_account === "?") {
      return { ...accounts, offered: { problem: "the demo exchange accounts could not be created (see above)" } };
    }
    save(accounts);
  }
  const { buyer, seller } = accounts;
  if (!accounts.market) {
    // A second go at once: seed-market publishes only what the first left missing.
    let market;
    for (let attempt = 0; attempt < 2 && !market; attempt++) {
      market = run("publish the demo market", ["seed-market", "--seller", seller.username], { EXCHANGE_SELLER_KEY: seller.api_key });
    }
    if (market) save((accounts = { ...accounts, market: { destinations: market.destinations } }));
  }
  if (accounts.market && !accounts.iot) {
    const iot = run("record the demo IoT history", ["seed-iot", "--buyer", buyer.username], { EXCHANGE_BUYER_KEY: buyer.api_key });
    if (iot) save((accounts = { ...accounts, iot: { devices: iot.devices } }));
  }
  return { ...accounts, offered: await offeredToBuyer(base, buyer, seller) };
}

/** The demo market and history as the demo buyer finds them: what `npm start` prints, and says when it is missing. */
async function offeredToBuyer(base, buyer, seller, attempt = 1) {
  const retry = "it is tried again on the next npm start, or now with: npm run exchange -- seed-market";
  try {
    const client = digestClient(`${base}/exchange`, buyer.username, buyer.api_key);
    const destinations = new Set();
    for (let off = 0, total = Infinity; off < total; off += 100) {
      const page = await client.post("/buyers/esim/market", { i_vendor: seller.i_account, pager: 100, off });
      if (page.status !== 200) throw new Error(`market: ${page.status} ${page.body.message ?? ""}`);
      total = page.body.total;
      if (page.body.packages.length === 0) break;
      for (const p of page.body.packages) if (p.kind === "universal") for (const c of [p.countries].flat()) destinations.add(c);
    }
    const balance = (await client.post("/buyers/balance")).body.balance;
    const history = await client.post("/buyers/iothistory", { date_from: "2000-01-01 00:00:00", date_to: "2100-01-01 00:00:00", pager: 1 });
    const offered = { destinations: destinations.size, balance, iotEvents: history.body.total };
    if (destinations.size === 0) return { ...offered, problem: `the demo market is not published: buyers find no packages (${retry})` };
    return offered;
  } catch (err) {
    // The seeding above blocked this process's event loop: a kept-alive connection the Worker closed meanwhile fails once.
    if (attempt < 2) return offeredToBuyer(base, buyer, seller, attempt + 1);
    return { problem: `the demo market could not be checked (${err.message}); ${retry}` };
  }
}

/**
 * Where the Worker sends recordings to be transcribed: the operator's TRANSCRIPTION_URL, or the
 * offline transcriber (transcriber/server.ts, installed by scripts/ensure-transcriber.sh when run as
 * root). Without its engine, transcription is off and verdicts rest on the calls' facts.
 */
async function startTranscription() {
  const worker = (url, model) => ({ TRANSCRIPTION_PROVIDER: "openai-compatible", TRANSCRIPTION_URL: url, TRANSCRIPTION_MODEL: model });
  if (TRANSCRIPTION_URL)
    return { vars: worker(TRANSCRIPTION_URL, process.env.TRANSCRIPTION_MODEL ?? "whisper-1"), note: TRANSCRIPTION_URL };
  const off = (why) => ({ vars: { TRANSCRIPTION_PROVIDER: "off" }, note: `off: ${why}` });
  const ensure = spawnSync("bash", [`${root}scripts/ensure-transcriber.sh`], { cwd: root, stdio: "inherit" });
  if (ensure.status !== 0) return off("the offline engine is not installed (see above)");
  const child = spawn(process.execPath, [`${root}transcriber/server.ts`], {
    cwd: root,
    env: { ...process.env, TRANSCRIBER_HOST: "127.0.0.1", TRANSCRIBER_PORT: String(TRANSCRIBER_PORT) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${TRANSCRIBER_PORT}`;
  for (let waited = 0; waited < 15_000; waited += 250) {
    if (child.exitCode !== null) {
      return off(child.exitCode === ENGINE_MISSING ? "the offline engine is missing" : `the transcriber exited (${child.exitCode})`);
    }
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      const service = { child, stop: () => stopChild(child), base: url };
      services.push(service);
      watch(service);
      return { vars: worker(`${url}/v1`, "pocketsphinx-en-us"), note: `${url}/v1 (offline PocketSphinx, English)` };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stopChild(child);
  return off("the offline transcriber did not answer within 15 s");
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

/** The SIP node process (sip-node/main.ts), configured through its environment. */
function startSipNode(workerUrl) {
  const child = spawn(process.execPath, [`${root}sip-node/main.ts`], {
    cwd: root,
    env: {
      ...process.env,
      WORKER_URL: workerUrl,
      NODE_TOKEN: devVar("NODE_TOKEN"),
      SIP_BIND: SIP_HOST,
      SIP_PORT: String(SIP_PORT),
      ...(SIP_WS ? { SIP_WS_PORT: String(SIP_WS_PORT) } : {}),
      CLI_LISTEN_PORT: String(CLI_LISTEN_PORT),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  return { child, stop: () => stopChild(child), ready: Promise.resolve(), base: `udp:${SIP_HOST}:${SIP_PORT}` };
}

function devVar(name) {
  const line = readFileSync(`${root}.dev.vars`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}=`));
  return line ? line.slice(name.length + 1).trim() : "";
}

/**
 * Secrets for local development, generated once into .dev.vars (never committed); a secret added
 * since (the exchange's own admin token) is appended to an older file.
 */
function ensureDevVars() {
  const path = `${root}.dev.vars`;
  const secret = () => randomBytes(32).toString("base64url");
  const names = ["JWT_SECRET", "ENCRYPTION_KEY", "NODE_TOKEN", "EXCHANGE_ADMIN_TOKEN"];
  if (!existsSync(path)) {
    writeFileSync(path, names.map((name) => `${name}=${secret()}\n`).join(""), { mode: 0o600 });
    return;
  }
  const text = readFileSync(path, "utf8");
  const missing = names.filter((name) => !new RegExp(`^${name}=`, "m").test(text));
  if (missing.length === 0) return;
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  writeFileSync(path, `${text}${separator}${missing.map((name) => `${name}=${secret()}\n`).join("")}`, { mode: 0o600 });
}

/**
 * The demo account may use the web dialer: its owner switches it on through the API, as in the
 * portal (a second process writing local D1 beside wrangler dev, as `wrangler d1 execute` did, makes
 * the Worker's own writes meet SQLITE_BUSY).
 */
async function enableDemoDialer(base, demo) {
  try {
    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: demo.email, password: demo.password }),
    });
    if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`);
    const { access_token: token } = await login.json();
    const res = await fetch(`${base}/api/customer/call-features`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ dialer_enabled: true }),
    });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  } catch (err) {
    console.error(`could not turn the web dialer on for ${demo.email}: ${err.message}`);
  }
}

/** The demo account: created on first start, its credentials kept in .wrangler/ (LOCAL_STATE_DIR) beside local D1. */
async function demoAccount(base) {
  const path = `${STATE_DIR}/demo-account.json`;
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8"));
  const demo = { email: "demo@example.com", password: randomBytes(12).toString("base64url") };
  const res = await fetch(`${base}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...demo, company: "Demo Carrier", accept_terms: true }),
  });
  if (res.status !== 201) {
    console.error(`could not create the demo account: ${res.status} ${await res.text()}`);
    return { email: demo.email, password: `(unknown: delete ${STATE_DIR}/ to start afresh)` };
  }
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(path, JSON.stringify(demo), { mode: 0o600 });
  return demo;
}
