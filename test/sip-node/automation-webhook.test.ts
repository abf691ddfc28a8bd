// Acting on verdicts end to end, nothing faked: sipp places a recorded call through the SIP node,
// the Worker under `wrangler dev` analyses it (embedded analyser) and hands the verdict to the
// automation rule, which controls the caller's number; the next INVITE from that number is
// refused with 603, or diverted to the rule's destination; a release lets it through again. The
// account webhook posts to an HTTP server of this test, which verifies every delivery with the
// Standard Webhooks reference library; it fails the first two tries of call.analyzed, which is
// then delivered once, on the third attempt.
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { freeUdpPort, openAccount, pause, startStack, uac, uas, type Stack, type TestAccount } from "./harness.ts";
import { callScript, speechPcap } from "./speech-pcap.ts";

const work = mkdtempSync(join(tmpdir(), "automation-e2e-"));
const SECRET = `whsec_${Buffer.from("automation end to end secret!!").toString("base64")}`;
const CALLER = "14155550100"; // the From user of uac-media.xml

type Received = { id: string; type: string; answered: number; data: any };

let stack: Stack;
let server: Server;
let hookUrl: string;
const received: Received[] = [];
const refusedTampered: boolean[] = [];
let failuresLeft = 2;

beforeAll(async () => {
  const port = await freeTcpPort();
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let event: any;
      try {
        event = new Webhook(SECRET).verify(body, headers);
      } catch {
        res.writeHead(401).end();
        return;
      }
      try {
        new Webhook(SECRET).verify(body.replace(/"type"/, '"tyPe"'), headers);
        refusedTampered.push(false);
      } catch {
        refusedTampered.push(true);
      }
      const status = event.type === "call.analyzed" && failuresLeft-- > 0 ? 500 : 200;
      received.push({ id: headers["webhook-id"]!, type: event.type, answered: status, data: event.data });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${port}/hook`;
  stack = await startStack({}, { OUTBOUND_ALLOW_LOOPBACK: "true", WEBHOOK_RETRY_DELAYS_SEC: "1,1,1,1" });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

/** A recorded call from CALLER: sipp speaks a script to a sipp destination answering on `port`. */
async function recordedCall(account: TestAccount, port: number) {
  const caller = speechPcap(work, "scam-bank", callScript("scam-bank"));
  const callee = speechPcap(work, "callee-hello", callScript("callee-hello"));
  const answering = uas("uas-media.xml", port, false, { AUDIO: callee.path });
  await answering.listening;
  const calling = await uac(stack, account.src, "uac-media.xml", "14155550123", {
    AUDIO: caller.path,
    AUDIO_MS: String(caller.ms + 400),
    DTMF: "/usr/share/sip-tester/dtmf_2833_1.pcap",
  });
  expect(calling.code, calling.output).toBe(0);
  expect((await answering).code).toBe(0);
}

/** The account's active controls, once there are `count` of them (the pipeline runs from a queue). */
async function controls(account: TestAccount, count: number): Promise<any[]> {
  for (let i = 0; i < 240; i++) {
    const list = await account.call("/api/automation/controls");
    if (list.items?.length >= count) return list.items;
    await pause(250);
  }
  throw new Error(`no control after 60 s: ${JSON.stringify(await account.call("/api/calls"))}`);
}

async function until<T>(what: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  for (let waited = 0; waited < timeoutMs; waited += 200) {
    const value = what();
    if (value !== undefined) return value;
    await pause(200);
  }
  throw new Error("timed out");
}

describe("a verdict over an automation rule's threshold", () => {
  it("controls the caller's number: its next INVITE is refused with 603, and released it goes through; webhook events arrive signed", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    expect(await account.call("/api/customer/webhook", { method: "PUT", body: { url: hookUrl, secret: SECRET } })).toEqual({
      url: hookUrl,
      secret_set: true,
    });
    const test = await account.call("/api/customer/webhook/test", { method: "POST" });
    expect(test).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(received.map((r) => r.type)).toEqual(["webhook.test"]);
    // Any verdict matches: the embedded analyser's probability for this call is not the point here.
    const rule = await account.call("/api/automation/rules", { body: { name: "Everything", min_probability: 0, recommendations: [] } });
    expect(rule).toMatchObject({ action: "block" });

    await recordedCall(account, port);
    const [control] = await controls(account, 1);
    expect(control).toMatchObject({ ani: CALLER, action: "block", rule_id: rule.id, released_at: null });

    const refused = await uac(stack, account.src, "uac-rejected.xml", "14155550123", { CODE: "603", ANI: CALLER });
    expect(refused.code, refused.output).toBe(0);
    expect(await account.call(`/api/automation/controls/${control.id}/release`, { method: "POST" })).toMatchObject({
      released_at: expect.any(String),
    });
    const callee = uas("uas.xml", port);
    await callee.listening;
    const through = await uac(stack, account.src, "uac.xml");
    expect(through.code, through.output).toBe(0);
    expect((await callee).code).toBe(0);

    // The webhook: call.analyzed refused twice by the receiver, delivered on the third attempt, once.
    const analyzed = await until(() => received.find((r) => r.type === "call.analyzed" && r.answered === 200));
    const tries = received.filter((r) => r.id === analyzed.id);
    expect(tries.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(received.filter((r) => r.type === "automation.number_controlled").map((r) => r.data.control.id)).toEqual([control.id]);
    expect(refusedTampered.every(Boolean)).toBe(true);
    const deliveries = await account.call("/api/customer/webhook/deliveries");
    const delivery = deliveries.items.find((d: any) => d.event_id === analyzed.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3 });
    const detail = await account.call(`/api/customer/webhook/deliveries/${delivery.id}`);
    expect(detail.attempt_log.map((a: any) => a.status_code)).toEqual([500, 500, 200]);
  }, 150_000);

  it("with a divert rule sends the number's next INVITE to the rule's destination", async () => {
    const port = await freeUdpPort();
    const divertPort = await freeUdpPort();
    const account = await openAccount(stack, port);
    const fraudDesk = await account.call("/api/customer/destinations", {
      body: { host: "127.0.0.1", port: divertPort, label: "Fraud desk" },
    });
    await account.call("/api/automation/rules", {
      body: { name: "To the fraud desk", min_probability: 0, recommendations: [], action: "divert", divert_destination_id: fraudDesk.id },
    });
    await recordedCall(account, port);
    const [control] = await controls(account, 1);
    expect(control).toMatchObject({ ani: CALLER, action: "divert", divert_destination_id: fraudDesk.id });
    const desk = uas("uas.xml", divertPort);
    await desk.listening;
    const caller = await uac(stack, account.src, "uac.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await desk).code, "the divert destination's sipp answered").toBe(0);
  }, 150_000);
});
