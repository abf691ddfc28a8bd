// `npm start` as the e2e tests run it: free ports, a process group of its own (as a terminal gives a
// foreground job, so Ctrl-C reaches every process), and its output kept to wait on.
import { spawn, type ChildProcess } from "node:child_process";
import { freeSipPort, freeTcpPort } from "../../scripts/lib/ports.mjs";

const root = new URL("../..", import.meta.url).pathname;

export type NpmStart = {
  child: ChildProcess;
  base: string;
  transcriberPort: number;
  sipPort: number;
  /** The hosted-number listener's port (CLI checks). */
  cliPort: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed so far, both streams. */
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** True once no process of the group is left (wrangler and workerd included). */
  gone(timeoutMs: number): Promise<boolean>;
  /** Ctrl-C, then a kill if anything outlives 15 s. */
  stop(): Promise<void>;
};

/** `stateDir`: LOCAL_STATE_DIR, local D1 and the demo accounts in another folder (an empty one: a fresh machine's first start). */
export async function startNpm(options: { stateDir?: string } = {}): Promise<NpmStart> {
  const port = await freeTcpPort();
  const sipPort = await freeTcpPort();
  const transcriberPort = await freeTcpPort();
  const cliPort = await freeSipPort();
  const child = spawn("npm", ["start"], {
    cwd: root,
    env: {
      ...process.env,
      API_PORT: String(port),
      SIP_PORT: String(sipPort),
      TRANSCRIBER_PORT: String(transcriberPort),
      CLI_LISTEN_PORT: String(cliPort),
      ...(options.stateDir ? { LOCAL_STATE_DIR: options.stateDir } : {}),
    },
    detached: true,
  });
  let output = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));

  const gone = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        process.kill(-child.pid!, 0);
      } catch {
        return true;
      }
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  return {
    child,
    base: `http://127.0.0.1:${port}`,
    transcriberPort,
    sipPort,
    cliPort,
    exited,
    output: () => output,
    waitForOutput: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${output}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          }
        };
        child.stdout!.on("data", check);
        void exited.then(() => reject(new Error(`npm start exited early:\n${output}`)));
        check();
      }),
    gone,
    stop: async () => {
      if (await gone(0)) return;
      process.kill(-child.pid!, "SIGINT");
      if (!(await gone(15_000))) process.kill(-child.pid!, "SIGKILL");
    },
  };
}
