// `npm start`: the whole service on this machine. Applies the D1 migrations (which seed
// the plans and AI tiers), starts `wrangler dev` with local D1, R2, Queues and Durable
// Objects, creates the demo account and prints its credentials. Ctrl-C stops everything.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
const API_HOST = process.env.API_HOST ?? "127.0.0.1";
const API_PORT = Number(process.env.API_PORT ?? 8787);
const apiBase = `http://${API_HOST}:${API_PORT}`;
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" };
const children = [];
let stopping = false;

ensureDevVars();
run("wrangler", ["d1", "migrations", "apply", "DB", "--local"]);
// Local runs keep the login limits but let a scripted suite open a few hundred accounts.
const localVars = { SIGNUP_MAX_PER_IP: "1000", SIGNUP_WINDOW_SEC: "60", INGRESS_HOST: "127.0.0.1" };
const varFlags = Object.entries(localVars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
children.push(
  start("api", "wrangler", [
    "dev",
    "--ip",
    API_HOST,
    "--port",
    String(API_PORT),
    "--show-interactive-dev-session=false",
    ...varFlags,
  ]),
);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stop);

if (await waitForHealth()) {
  const demo = await demoAccount();
  console.log(`
  API        ${apiBase}/api   (explorer: ${apiBase}/api/docs)
  Demo login ${demo.email} / ${demo.password}
  Ctrl-C stops everything.
`);
}

/** Secrets for local development, generated once into .dev.vars (never committed). */
function ensureDevVars() {
  const path = `${root}.dev.vars`;
  if (existsSync(path)) return;
  const secret = () => randomBytes(32).toString("base64url");
  writeFileSync(
    path,
    [
      `JWT_SECRET=${secret()}`,
      `ENCRYPTION_KEY=${secret()}`,
      `NODE_TOKEN=${secret()}`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, env, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`${command} ${args.join(" ")} failed`);
    process.exit(result.status ?? 1);
  }
}

function start(name, command, args) {
  const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] });
  child.on("exit", (code, signal) => {
    if (stopping) return;
    console.error(`${name} exited (${signal ?? code}); stopping`);
    stop();
  });
  return child;
}

function stop() {
  if (stopping) return;
  stopping = true;
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  if (alive.length === 0) process.exit(0);
  let remaining = alive.length;
  for (const child of alive) {
    child.once("exit", () => --remaining === 0 && process.exit(0));
    // Each child stops its own children (wrangler stops workerd).
    child.kill("SIGTERM");
  }
  setTimeout(() => {
    for (const child of alive) child.kill("SIGKILL");
    process.exit(1);
  }, 10_000).unref();
}

async function waitForHealth() {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(`${apiBase}/api/health`);
      if (res.ok && (await res.json()).db === true) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!stopping) console.error("the API did not become healthy in 120 s");
  stop();
  return false;
}

/** The demo account: created on first start, its credentials kept in .wrangler/ beside local D1. */
async function demoAccount() {
  const path = `${root}.wrangler/demo-account.json`;
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8"));
  const demo = { email: "demo@example.com", password: randomBytes(12).toString("base64url") };
  const res = await fetch(`${apiBase}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...demo, company: "Demo Carrier", accept_terms: true }),
  });
  if (res.status !== 201) {
    console.error(`could not create the demo account: ${res.status} ${await res.text()}`);
    return { email: demo.email, password: "(unknown: delete .wrangler/ to start afresh)" };
  }
  mkdirSync(`${root}.wrangler`, { recursive: true });
  writeFileSync(path, JSON.stringify(demo), { mode: 0o600 });
  return demo;
}
