// `npm start`: the whole service on this machine. Applies the D1 migrations (which seed
// the plans and AI tiers), starts `wrangler dev` with local D1, R2, Queues and Durable
// Objects, creates the demo account and prints its credentials. Ctrl-C stops everything.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { startWranglerDev } from "./lib/wrangler-dev.mjs";

const root = new URL("..", import.meta.url).pathname;
const API_HOST = process.env.API_HOST ?? "127.0.0.1";
const API_PORT = Number(process.env.API_PORT ?? 8787);

// Local runs keep the login limits but let a scripted suite open a few hundred accounts.
const LOCAL_VARS = { SIGNUP_MAX_PER_IP: "1000", SIGNUP_WINDOW_SEC: "60", INGRESS_HOST: API_HOST };

ensureDevVars();
const services = [await startWranglerDev({ host: API_HOST, port: API_PORT, vars: LOCAL_VARS })];
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(0));
for (const service of services) {
  service.child.on("exit", (code, signal) => {
    if (stopping) return;
    console.error(`a service exited (${signal ?? code}); stopping`);
    void stop(1);
  });
}

try {
  await Promise.all(services.map((s) => s.ready));
} catch (err) {
  console.error(String(err));
  await stop(1);
}
const base = services[0].base;
const demo = await demoAccount(base);
console.log(`
  API        ${base}/api   (explorer: ${base}/api/docs)
  Demo login ${demo.email} / ${demo.password}
  Ctrl-C stops everything.
`);

/** Stops every service (each stops its own children: wrangler stops workerd), then exits. */
async function stop(code) {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), 10_000).unref();
  await Promise.all(services.map((s) => s.stop()));
  process.exit(code);
}

/** Secrets for local development, generated once into .dev.vars (never committed). */
function ensureDevVars() {
  const path = `${root}.dev.vars`;
  if (existsSync(path)) return;
  const secret = () => randomBytes(32).toString("base64url");
  const lines = [`JWT_SECRET=${secret()}`, `ENCRYPTION_KEY=${secret()}`, `NODE_TOKEN=${secret()}`, ""];
  writeFileSync(path, lines.join("\n"), { mode: 0o600 });
}

/** The demo account: created on first start, its credentials kept in .wrangler/ beside local D1. */
async function demoAccount(base) {
  const path = `${root}.wrangler/demo-account.json`;
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8"));
  const demo = { email: "demo@example.com", password: randomBytes(12).toString("base64url") };
  const res = await fetch(`${base}/api/auth/signup`, {
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
