// Starts `wrangler dev` for scripts (npm start, benchmarks): local D1 with migrations
// applied, on a given port and state folder, and resolves once /api/health reports the
// database up.
import { spawn, spawnSync } from "node:child_process";

const root = new URL("../..", import.meta.url).pathname;

export async function startWranglerDev({ port, host = "127.0.0.1", persistTo, vars = {}, config, stdio = "inherit" }) {
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" };
  const common = [...(config ? ["--config", config] : []), ...(persistTo ? ["--persist-to", persistTo] : [])];
  if (!config) {
    const migrate = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local", ...common], { cwd: root, env, stdio });
    if (migrate.status !== 0) throw new Error("wrangler d1 migrations apply failed");
  }
  const varFlags = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const child = spawn(
    "wrangler",
    ["dev", "--ip", host, "--port", String(port), "--show-interactive-dev-session=false", ...common, ...varFlags],
    { cwd: root, env, stdio: ["ignore", stdio, stdio] },
  );
  const base = `http://${host}:${port}`;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  return { child, base, stop, ready: waitForHealth(base, child, config ? "/" : "/api/health") };
}

async function waitForHealth(base, child, path) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error("wrangler dev exited before it was ready");
    try {
      const res = await fetch(`${base}${path}`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${base}${path} did not answer within 120 s`);
}
