// `npm start` as a developer runs it: the API comes up on local D1 with the catalogue
// seeded, the demo account it prints can sign in, and Ctrl-C stops every process.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNpm, type NpmStart } from "./npm-start.ts";

const root = new URL("../..", import.meta.url).pathname;
let app: NpmStart;
let base = "";

beforeAll(async () => {
  app = await startNpm();
  base = app.base;
});

afterAll(async () => {
  // Whatever happened above, leave no server behind.
  if (!(await app.gone(0))) process.kill(-app.child.pid!, "SIGKILL");
});

describe("npm start", () => {
  let demo: { email: string; password: string };

  it("serves the API with the database up and prints a demo login that works", async () => {
    const [, email, password] = await app.waitForOutput(/Demo login (\S+) \/ (\S+)/, 150_000);
    await app.waitForOutput(/SIP node \S+ on udp 127\.0\.0\.1:\d+/, 30_000);
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
    // Where the portal tells a carrier to send calls is where the node listens.
    const { access_token } = (await login.json()) as { access_token: string };
    const network = await fetch(`${base}/api/customer/network-info`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(await network.json()).toMatchObject({ ingress_host: "127.0.0.1", ingress_port: app.sipPort });
    const plans = (await (await fetch(`${base}/api/plans`)).json()) as unknown[];
    expect(plans.length).toBe(4);
  });

  it("shows the demo buyer a market and an IoT history, counted as the buyer finds them (issue 27 items 2 and 7)", async () => {
    const [, events] = await app.waitForOutput(/IoT history \(the demo buyer's devices: (\d+) events/, 30_000);
    const [, destinations] = /the demo seller's market: (\d+) destinations/.exec(app.output())!;
    expect(Number(destinations)).toBeGreaterThan(0);
    expect(Number(events)).toBeGreaterThan(0);
    expect(app.output()).not.toMatch(/NOT READY/);
  });

  it("lifts the per-address OAuth client registration limit, as MCP clients register on each connection (issue 27 item 7)", async () => {
    // Production takes 30 an hour from one address; the Inspector run a dozen times would meet it.
    for (let i = 0; i < 35; i++) {
      const res = await fetch(`${base}/api/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:6274/oauth/callback"], token_endpoint_auth_method: "none" }),
      });
      expect(res.status, await res.text()).toBe(201);
    }
  });

  it("runs the offline transcriber and points the Worker at it", async () => {
    await app.waitForOutput(new RegExp(`Transcription http://127\\.0\\.0\\.1:${app.transcriberPort}/v1 \\(offline`), 5_000);
    const health = await fetch(`http://127.0.0.1:${app.transcriberPort}/health`);
    expect(health.status).toBe(200);
  });

  it("shows an invitation's mail locally: npm run mail prints the temporary password, which signs the member in", async () => {
    await app.waitForOutput(/Mail\s+http:\/\/\S+\/dev\/mail/, 5_000);
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

  it("serves the web dialer: its page and JsSIP, a token for the demo account, the node's SIP WebSocket on loopback", async () => {
    const [, dialerPage, wsUrl] = await app.waitForOutput(/Web dialer (\S+) +\(over (ws:\/\/\S+);/, 5_000);
    expect(dialerPage).toBe(`${base}/dialer`);
    const page = await fetch(dialerPage!);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain(`connect-src 'self' ${wsUrl}`);
    const jssip = await fetch(`${base}/dialer-assets/vendor/jssip.js`);
    expect(jssip.status).toBe(200);
    expect(await jssip.text()).toContain("JsSIP");

    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(demo),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    // npm start turns the demo account's dialer on beside the running Worker: a moment after the banner.
    let session: Response | null = null;
    for (let i = 0; i < 40 && session?.status !== 200; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      session = await fetch(`${base}/api/customer/dialer/session`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    }
    expect(session!.status).toBe(200);
    expect(((await session!.json()) as { websocket_url: string }).websocket_url).toBe(wsUrl);

    const socket = new WebSocket(wsUrl!, "sip");
    const reply = new Promise<string>((resolve, reject) => {
      socket.onmessage = (event) => resolve(String(event.data));
      socket.onerror = () => reject(new Error("the SIP WebSocket did not open"));
    });
    await new Promise((resolve) => (socket.onopen = resolve));
    socket.send(
      "OPTIONS sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/WS e2e.invalid;branch=z9hG4bKe2e1\r\nMax-Forwards: 70\r\n" +
        "From: <sip:e2e@e2e.invalid>;tag=1\r\nTo: <sip:127.0.0.1>\r\nCall-ID: e2e-options\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n",
    );
    expect(await reply).toMatch(/^SIP\/2\.0 403 /);
    socket.close();
  });

  it("stops every process on Ctrl-C", async () => {
    process.kill(-app.child.pid!, "SIGINT");
    // npm itself ends by the signal, as after Ctrl-C in a terminal; our script ends cleanly.
    expect(await app.exited).toEqual({ code: null, signal: "SIGINT" });
    expect(await app.gone(15_000)).toBe(true);
    expect(app.output()).not.toMatch(/exited \(|SIGKILL/);
    await expect(fetch(`${base}/api/health`)).rejects.toThrow();
  });
});
