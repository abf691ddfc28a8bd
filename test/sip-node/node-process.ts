// The SIP node as its own process (sip-node/main.ts, as `npm start` runs it), for tests that kill
// it or stop it with a signal, configured like startStack's in-process node; and a TCP proxy on
// the node's link to the Worker that a test can cut and restore.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { freeSipPort } from "../../scripts/lib/ports.mjs";
import type { Stack } from "./harness.ts";

const root = new URL("../..", import.meta.url).pathname;

export type NodeProcess = {
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/**
 * Starts `node sip-node/main.ts` for `stack`'s Worker (or `env.WORKER_URL`), resolving once it
 * listens. The spool (`MEDIA_SPOOL_DIR`) and the SIP port should be passed again to a node
 * started anew in its place.
 */
export async function startNodeProcess(stack: Stack, env: Record<string, string>): Promise<NodeProcess> {
  const port = env.SIP_PORT ? Number(env.SIP_PORT) : await freeSipPort();
  const rtp = 21_000 + (process.pid % 100) * 40;
  // tsx: this machine's Node may predate type stripping.
  const child = spawn(process.execPath, ["--import", "tsx", `${root}sip-node/main.ts`], {
    cwd: root,
    env: {
      ...process.env,
      NODE_TOKEN: stack.nodeToken,
      WORKER_URL: stack.api,
      SIP_BIND: "127.0.0.1",
      NODE_ID: "process-node",
      NO_ANSWER_SECONDS: "3",
      RTP_TIMEOUT_SECONDS: "120",
      RTP_PORT_MIN: String(rtp),
      RTP_PORT_MAX: String(rtp + 39),
      ...env,
      SIP_PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 30_000;
  while (!/SIP node \S+ on udp/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the node did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    port,
    exited,
    output: () => output,
    kill: (signal) => {
      child.kill(signal);
      return exited;
    },
  };
}

export type LinkProxy = { url: string; cut(): void; restore(): void; close(): Promise<void> };

/** A TCP proxy to `target` (http://host:port): while cut, every connection is dropped at once. */
export async function startLinkProxy(target: string): Promise<LinkProxy> {
  const { hostname, port } = new URL(target);
  let cut = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = connect(Number(port), hostname);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
