// The node as a whole against a stand-in Worker over HTTP (fake-worker.ts), with sipp on both
// sides: admissions name the account and the boot, every call event reaches the call ledger
// batched and numbered, the ledger's answers cut or end calls, and a draining node refuses new
// calls with 503 and Retry-After, lets calls go on for the drain time, then ends them (node_drain)
// and reports it before it stops.
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EndedEvent } from "../../schema/node-api.ts";
import { loadSipNodeConfig } from "../../sip-node/config.ts";
import { startSipNode, type SipNode } from "../../sip-node/node.ts";
import { startFakeWorker, type FakeWorker } from "./fake-worker.ts";
import { freeSipPort, freeUdpPort, pause, sendRaw, uac, uas, type Stack } from "./harness.ts";

const CALLER = "127.0.0.61";
const ACCOUNT = randomUUID();

let worker: FakeWorker | null = null;
let node: SipNode | null = null;

afterEach(async () => {
  await node?.stop();
  await worker?.close();
  node = worker = null;
});

async function start(options: { grantedSeconds?: number; env?: Record<string, string> } = {}) {
  const destinationPort = await freeUdpPort();
  worker = await startFakeWorker({ sources: { [CALLER]: ACCOUNT }, destinationPort, grantedSeconds: options.grantedSeconds });
  const base = 40_000 + (process.pid % 100) * 100;
  const config = loadSipNodeConfig({
    NODE_TOKEN: "t".repeat(32),
    WORKER_URL: worker.url,
    SIP_BIND: "127.0.0.1",
    SIP_PORT: String(await freeSipPort()),
    NODE_ID: "ledger-node",
    RTP_TIMEOUT_SECONDS: "60",
    MEDIA_SPOOL_DIR: mkdtempSync(join(tmpdir(), "node-ledger-")),
    RTP_PORT_MIN: String(base),
    RTP_PORT_MAX: String(base + 99),
    NODE_HEARTBEAT_SECONDS: "0.3",
    ...options.env,
  });
  node = await startSipNode(config, { whitelistPollMs: 60_000, monitorIntervalMs: 60_000 });
  return { destinationPort, stack: { node } as Stack };
}

const endedEvents = (w: FakeWorker) => w.events().filter((e) => e.event.type === "ended");
const ended = (w: FakeWorker) => endedEvents(w)[0]?.event as EndedEvent | undefined;

const invite = (port: number, callId: string) =>
  [
    `INVITE sip:14155550123@127.0.0.1:${port} SIP/2.0`,
    `Via: SIP/2.0/UDP ${CALLER}:5999;branch=z9hG4bK-${callId}`,
    "Max-Forwards: 70",
    `From: <sip:14155550100@${CALLER}>;tag=drain-test`,
    `To: <sip:14155550123@127.0.0.1:${port}>`,
    `Call-ID: ${callId}`,
    "CSeq: 1 INVITE",
    `Contact: <sip:caller@${CALLER}:5999>`,
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");

describe("calls reported to the call ledger", () => {
  it("admits with the caller's account and the node's boot, and reports answered then ended, numbered, under that boot", async () => {
    const { destinationPort, stack } = await start();
    const callee = uas("uas-hungup.xml", destinationPort);
    await callee.listening;
    const caller = uac(stack, CALLER, "uac-callee-bye.xml");
    const w = worker!;
    const ticket = await w.until(() => w.events().some((e) => e.event.type === "answered") && w.tickets[0]);
    expect(w.admissions[0]).toMatchObject({ node_id: "ledger-node", boot_id: node!.bootId, customer_id: ACCOUNT, src_ip: CALLER });
    // The heartbeats name the call while it is up.
    await w.until(() => w.reports.some((r) => r.live?.some((c) => c.call_id === ticket.call_id && c.customer_id === ACCOUNT)));
    expect(node!.calls.hangUp(ticket.call_id, "hangup_requested")).toBe(true);
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
    await w.until(() => ended(w));
    const mine = w.events().filter((e) => e.call_id === ticket.call_id);
    expect(mine.map((e) => [e.seq, e.event.type, e.customer_id])).toEqual([
      [1, "answered", ACCOUNT],
      [2, "ended", ACCOUNT],
    ]);
    expect(new Set(w.reports.map((r) => r.boot_id))).toEqual(new Set([node!.bootId]));
    expect(ended(w)).toMatchObject({ end_reason: "hangup_requested", hangup_by: "platform" });
  });

  it("cuts a call at the ticket's granted seconds unless the ledger grants more, then at the grant", async () => {
    const { destinationPort, stack } = await start({ grantedSeconds: 1 });
    const w = worker!;
    // Every report after the answer grants 3 s of talk.
    w.answerWith((report) => ({
      grants: (report.live ?? []).map((c) => ({ call_id: c.call_id, granted_seconds: 3 })),
      ended: [],
    }));
    const callee = uas("uas-hungup.xml", destinationPort);
    await callee.listening;
    const caller = uac(stack, CALLER, "uac-callee-bye.xml");
    const answeredAt = await w.until(() => {
      const event = w.events().find((e) => e.event.type === "answered")?.event;
      return event && Date.parse(event.at);
    });
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
    const end = await w.until(() => ended(w));
    expect(end).toMatchObject({ end_reason: "credit_exhausted", hangup_by: "platform", sip_code: 200 });
    const talk = Date.parse(end.at) - answeredAt;
    expect(talk).toBeGreaterThanOrEqual(2_900);
    expect(talk).toBeLessThan(4_000);
  });

  it("asks the ledger early for more when a grant runs out before the next heartbeat", async () => {
    const { destinationPort, stack } = await start({ grantedSeconds: 3, env: { NODE_HEARTBEAT_SECONDS: "60" } });
    const w = worker!;
    w.answerWith((report) => ({ grants: (report.live ?? []).map((c) => ({ call_id: c.call_id, granted_seconds: 5 })), ended: [] }));
    const callee = uas("uas-hungup.xml", destinationPort);
    await callee.listening;
    const caller = uac(stack, CALLER, "uac-callee-bye.xml");
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
    const end = await w.until(() => ended(w));
    const talk = Date.parse(end.at) - Date.parse(end.answered_at!);
    // Without the early report the 3 s of the ticket would have ended it; the ledger's 5 s did.
    expect(end.end_reason).toBe("credit_exhausted");
    expect(talk).toBeGreaterThanOrEqual(4_900);
    expect(talk).toBeLessThan(6_000);
  });

  it("hangs up at once a call the ledger answers as ended, with the ledger's reason", async () => {
    const { destinationPort, stack } = await start();
    const w = worker!;
    const callee = uas("uas-hungup.xml", destinationPort);
    await callee.listening;
    const caller = uac(stack, CALLER, "uac-callee-bye.xml");
    const ticket = await w.until(() => w.events().some((e) => e.event.type === "answered") && w.tickets[0]);
    w.answerWith(() => ({ grants: [], ended: [{ call_id: ticket.call_id, reason: "node_lost" }] }));
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
    expect(await w.until(() => ended(w))).toMatchObject({ end_reason: "node_lost", hangup_by: "platform" });
  });
});

describe("a draining node", () => {
  it("refuses new calls with 503 and Retry-After, ends the calls still up after the drain time (node_drain) and reports it before it stops", async () => {
    const { destinationPort, stack } = await start({ env: { NODE_DRAIN_SECONDS: "2" } });
    const w = worker!;
    const callee = uas("uas-hungup.xml", destinationPort);
    await callee.listening;
    const caller = uac(stack, CALLER, "uac-callee-bye.xml");
    await w.until(() => w.events().some((e) => e.event.type === "answered"));
    const began = Date.now();
    const drained = node!.drain();
    const replies = await sendRaw(stack, CALLER, invite(node!.port, `drain-${randomUUID()}`), 1_500, (received) =>
      received.some((r) => r.startsWith("SIP/2.0 5")),
    );
    const refusal = replies.find((r) => r.startsWith("SIP/2.0 5"));
    expect(refusal).toMatch(/^SIP\/2\.0 503 /);
    expect(refusal).toMatch(/\r\nRetry-After: 2\r\n/i);
    expect(w.admissions).toHaveLength(1); // the refused INVITE never reached the Worker
    expect(ended(w)).toBeUndefined(); // the call goes on during the drain time
    await drained;
    expect(Date.now() - began).toBeGreaterThanOrEqual(2_000);
    // Reported before drain() returned: nothing waits in the reporter.
    expect(ended(w)).toMatchObject({ end_reason: "node_drain", hangup_by: "platform", sip_code: 200 });
    expect(node!.reporter.backlog).toBe(0);
    // ...and its SIP log handed over, naming the call's account.
    const ticket = worker!.tickets[0]!;
    expect(w.uploads).toContain(`/internal/calls/${ticket.call_id}/media/sip-log.jsonl?customer_id=${ACCOUNT}`);
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
  });

  it("ends its calls at once when told to stop sooner during the drain (a second signal)", async () => {
    const { destinationPort, stack } = await start({ env: { NODE_DRAIN_SECONDS: "30" } });
    const w = worker!;
    const callee = uas("uas-hungup.xml", destinationPort);
    await callee.listening;
    const caller = uac(stack, CALLER, "uac-callee-bye.xml");
    await w.until(() => w.events().some((e) => e.event.type === "answered"));
    const began = Date.now();
    const drained = node!.drain();
    await pause(300); // deliberate: the second signal comes a moment into the drain
    expect(node!.drain(0)).toBe(drained);
    await drained;
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(ended(w)).toMatchObject({ end_reason: "node_drain" });
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
  });

  it("stops at once when no call is up", async () => {
    await start({ env: { NODE_DRAIN_SECONDS: "30" } });
    const began = Date.now();
    await node!.drain();
    expect(Date.now() - began).toBeLessThan(2_000);
  });
});
