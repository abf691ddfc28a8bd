// `npm start` as a developer runs it: the API comes up on local D1 with the catalogue
// seeded, the demo account it prints can sign in, and Ctrl-C stops every process.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";

const root = new URL("../..", import.meta.url).pathname;
let child: ChildProcess;
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
let output = "";
let base = "";
let transcriberPort = 0;

function waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
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
  });
}

/** True once no process of the group is left (wrangler and workerd included). */
async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  const port = await freeTcpPort();
  base = `http://127.0.0.1:${port}`;
  // A process group of its own, as a terminal gives a foreground job, so Ctrl-C reaches it whole.
  const sipPort = await freeTcpPort();
  transcriberPort = await freeTcpPort();
  child = spawn("npm", ["start"], {
    cwd: root,
    env: { ...process.env, API_PORT: String(port), SIP_PORT: String(sipPort), TRANSCRIBER_PORT: String(transcriberPort) },
    detached: true,
  });
  exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
});

afterAll(async () => {
  // Whatever happened above, leave no server behind.
  if (!(await groupGone(child.pid!, 0))) process.kill(-child.pid!, "SIGKILL");
});

describe("npm start", () => {
  let demo: { email: string; password: string };

  it("serves the API with the database up and prints a demo login that works", async () => {
    const [, email, password] = await waitForOutput(/Demo login (\S+) \/ (\S+)/, 150_000);
    await waitForOutput(/SIP node \S+ on udp 127\.0\.0\.1:\d+/, 30_000);
    demo = { email: email!, password: password! };
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", db: true });

    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(demo),
    });
    expect(login.status).toBe(200);
    const plans = (await (await fetch(`${base}/api/plans`)).json()) as unknown[];
    expect(plans.length).toBe(4);
  });

  it("runs the offline transcriber and points the Worker at it", async () => {
    await waitForOutput(new RegExp(`Transcription http://127\\.0\\.0\\.1:${transcriberPort}/v1 \\(offline`), 5_000);
    const health = await fetch(`http://127.0.0.1:${transcriberPort}/health`);
    expect(health.status).toBe(200);
  });

  it("shows an invitation's mail locally: npm run mail prints the temporary password, which signs the member in", async () => {
    await waitForOutput(/Mail\s+http:\/\/\S+\/dev\/mail/, 5_000);
    // A fresh owner: the demo account outlives test runs on a developer's machine (and its member limit).
    const owner = await fetch(`${base}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `owner-${Date.now()}@example.com`, password: `pw-${crypto.randomUUID()}`, accept_terms: true }),
    });
    expect(owner.status).toBe(201);
    const token = ((await owner.json()) as { access_token: string }).access_token;
    const email = `member-${Date.now()}@example.com`;
    const invite = await fetch(`${base}/api/customer/users`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ email }),
    });
    expect(invite.status).toBe(201);
    const printed = spawnSync("npm", ["run", "--silent", "mail", "--", "--to", email, "--json"], {
      cwd: root,
      env: { ...process.env, API_PORT: new URL(base).port },
      encoding: "utf8",
    });
    expect(printed.status, printed.stderr).toBe(0);
    const [message] = (JSON.parse(printed.stdout) as { messages: { text: string }[] }).messages;
    const password = /temporary password (\S+)/.exec(message!.text)![1];
    const member = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(member.status).toBe(200);
    expect(((await member.json()) as { customer: { must_change_password: boolean } }).customer.must_change_password).toBe(true);
  });

  it("serves the explorer's own assets", async () => {
    const bundle = await fetch(`${base}/api/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });

  it("stops every process on Ctrl-C", async () => {
    process.kill(-child.pid!, "SIGINT");
    // npm itself ends by the signal, as after Ctrl-C in a terminal; our script ends cleanly.
    expect(await exited).toEqual({ code: null, signal: "SIGINT" });
    expect(await groupGone(child.pid!, 15_000)).toBe(true);
    expect(output).not.toMatch(/exited \(|SIGKILL/);
    await expect(fetch(`${base}/api/health`)).rejects.toThrow();
  });
});
