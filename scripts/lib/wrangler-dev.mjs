// Starts `wrangler dev` for scripts (npm start, benchmarks): local D1 with migrations
// applied, on a given port and state folder, and resolves once /api/health reports the
// database up.
import { spawn, spawnSync } from "node:child_process";

const root = new URL("../..", import.meta.url).pathname;

export async function startWranglerDev({ port, host = "127.0.0.1", persistTo, vars = {}, config, stdio = "inherit" }) {
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" };
  const common = [...(config ? ["--config", config] : []), ...(persistTo ? ["--persist-to", persistTo] : [])];
  if (!config) applyMigrations(common, env, stdio);
  const varFlags = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const child = spawn(
    "wrangler",
    // --test-scheduled: GET /__scheduled runs the cron's jobs now (local only), as tests and operators need.
    ["dev", "--ip", host, "--port", String(port), "--show-interactive-dev-session=false", "--test-scheduled", ...common, ...varFlags],
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

/**
 * Applies the D1 migrations to the local database. A busy machine can make one attempt fail
 * (local D1 locked by a process still closing it, workerd slow to start): tried three times, and
 * a last failure says what wrangler printed.
 */
function applyMigrations(common, env, stdio) {
  let output = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    const migrate = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local", ...common], { cwd: root, env, encoding: "utf8" });
    output = `${migrate.stdout ?? ""}${migrate.stderr ?? ""}`;
    if (stdio === "inherit") process.stdout.write(output);
    if (migrate.status === 0) return;
    spawnSync("sleep", [String(attempt)]);
  }
  throw new Error(`wrangler d1 migrations apply failed three times; last output:\n${output.slice(-2000)}`);
}
