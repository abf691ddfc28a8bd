// The portal project's one service stack: `npm start` on free ports with a fresh LOCAL_STATE_DIR
// (a first start on a clean machine), shared by every test file of the project, each file with
// accounts of its own. It is stopped, and its state removed, once the files are done.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { startNpm, type NpmStart } from "../e2e/npm-start.ts";
import { until } from "../sip-node/wait.ts";
import type { PortalStack } from "./context.ts";

const root = new URL("../..", import.meta.url).pathname;

/**
 * `npm start` with what startNpm does not choose itself set in its environment for the one spawn:
 * the web dialer's WebSocket port (5066 by default, taken by any other `npm start` on the machine)
 * and the node's media spool (by default one folder per NODE_ID, shared with other local nodes).
 */
async function startStack(state: string): Promise<NpmStart> {
  const extra: Record<string, string> = { SIP_WS_PORT: String(await freeTcpPort()), MEDIA_SPOOL_DIR: join(state, "spool") };
  const saved = Object.fromEntries(Object.keys(extra).map((key) => [key, process.env[key]]));
  Object.assign(process.env, extra);
  try {
    return await startNpm({ stateDir: state });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  // npm ci's postinstall builds the portal; a checkout without it (or after a clean) builds here.
  if (!existsSync(join(root, "public/app/index.html"))) {
    const build = spawnSync(process.execPath, [join(root, "portal/scripts/build.mjs")], { cwd: root, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`the portal does not build:\n${build.stdout}\n${build.stderr}`);
  }
  const state = mkdtempSync(join(tmpdir(), "portal-test-"));
  const sourcesDir = join(state, "sources");
  mkdirSync(sourcesDir);
  const app = await startStack(state);
  const teardown = async () => {
    await app.stop();
    rmSync(state, { recursive: true, force: true });
  };
  try {
    const [, email, password] = await app.waitForOutput(/Demo login (\S+) \/ (\S+)/, 240_000);
    const [, sipPort] = await app.waitForOutput(/SIP node \S+ on udp 127\.0\.0\.1:(\d+)/, 30_000);
    const [, transcription] = await app.waitForOutput(/Transcription (\S+)/, 5_000);
    // The shell answers 503 while public/app/ has no index.html (a build under way empties it first).
    await until("the portal's shell at /app (public/app/ built)", async () => (await fetch(`${app.base}/app`)).status === 200, 60_000, 500);
    const port = new URL(app.base).port;
    const stack: PortalStack = {
      base: `http://localhost:${port}`,
      api: `http://127.0.0.1:${port}`,
      sipPort: Number(sipPort),
      cliPort: app.cliPort,
      transcription: transcription !== "off:",
      sourcesDir,
      demo: { email: email!, password: password! },
    };
    project.provide("portal", stack);
    console.log(
      `portal tests: npm start ready in ${Date.now() - started} ms (${stack.base}, SIP ${stack.sipPort}, transcription ${stack.transcription ? "on" : "off"})`,
    );
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}
