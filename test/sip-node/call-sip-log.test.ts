// A call's SIP log (CallSipLog) through the in-memory host: every message on the wire for the call,
// kept in memory until the Worker admits it, written to <call id>-sip-log.jsonl from then on, and
// handed over once the messages answering the end have come. Time is a fake clock; the file is real.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AdmitResponse, SipLogLine } from "../../schema/node-api.ts";
import { SIP_LOG_MAX_LINGER_MS, SIP_LOG_QUIET_MS } from "../../sip-node/calls/call-sip-log.ts";
import { header } from "../../sip-node/sip/headers.ts";
import {
  CALLEE,
  CALLEE_SDP,
  calleeReply,
  CALLER,
  callerInvite,
  fromCaller,
  memoryNode,
  tagOf,
  ticket,
  TIMERS,
  type MemoryNode,
} from "./memory-host.ts";

let node: MemoryNode | null = null;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
});

afterEach(async () => {
  vi.useRealTimers();
  await node?.close();
  node = null;
});

/** Lets real I/O (the log file being closed) finish while the fake clock stays put. */
/**
 * Lets the node's real file work (writes, closes, the upload) run until `done`, for at least 2,000
 * turns of the event loop and at most `realMs` of real time: on a loaded machine the file system
 * can take longer than a fixed number of turns.
 */
async function until(done: () => boolean, realMs = 10_000): Promise<void> {
  const deadline = performance.now() + realMs;
  for (let i = 0; !done() && (i < 2_000 || performance.now() < deadline); i++) await new Promise((resolve) => setImmediate(resolve));
}

const sipLogs = (n: MemoryNode) => n.uploads.filter((u) => u.name === "sip-log.jsonl");
const lines = (path: string): SipLogLine[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** "<in|out> <peer> <method or status>" for each line; the peer is the caller or the callee. */
const summary = (log: SipLogLine[]) =>
  log.map((l) => {
    const peer = l.direction === "in" ? l.fromip : l.toip;
    return `${l.direction} ${peer === `${CALLER.address}:${CALLER.port}` ? "caller" : "callee"} ${l.status ?? l.method}`;
  });

describe("a call's SIP log", () => {
  it("keeps what came before the admission, waits for the answer to our BYE, then hands the file over", async () => {
    const admission = ticket();
    let admit!: (answer: AdmitResponse) => void;
    node = memoryNode(() => new Promise((resolve) => (admit = resolve)));
    node.deliver(callerInvite(), CALLER);
    // The caller sends its INVITE again while the Worker decides: a retransmission, logged too.
    await vi.advanceTimersByTimeAsync(TIMERS.T1);
    node.deliver(callerInvite(), CALLER);
    admit(admission);
    await node.started();
    const [toCallee] = node.requestsTo(CALLEE, "INVITE");
    node.deliver(calleeReply(toCallee!, 200, CALLEE_SDP), CALLEE);
    const ourTag = tagOf(node.responsesTo(CALLER, 200)[0]!, "To")!;
    node.deliver(fromCaller("ACK", { toTag: ourTag }), CALLER);
    node.deliver(fromCaller("BYE", { toTag: ourTag, seq: 2 }), CALLER);
    await node.event("ended");

    // The callee takes its time answering our BYE: the log stays open past the quiet period.
    await vi.advanceTimersByTimeAsync(SIP_LOG_QUIET_MS * 2);
    await until(() => sipLogs(node!).length > 0, 0);
    expect(sipLogs(node)).toEqual([]);
    const [bye] = node.requestsTo(CALLEE, "BYE");
    node.deliver(calleeReply(bye!, 200), CALLEE);
    await vi.advanceTimersByTimeAsync(SIP_LOG_QUIET_MS);
    await until(() => sipLogs(node!).length > 0);
    expect(sipLogs(node)).toEqual([
      {
        callId: admission.call_id,
        name: "sip-log.jsonl",
        path: expect.stringMatching(new RegExp(`${admission.call_id}-sip-log\\.jsonl$`)),
      },
    ]);

    const log = lines(sipLogs(node)[0]!.path);
    expect(summary(log)).toEqual([
      "in caller INVITE",
      "out caller 100 Trying",
      "in caller INVITE",
      "out caller 100 Trying",
      "out callee INVITE",
      "in callee 200 OK",
      "out callee ACK",
      "out caller 200 OK",
      "in caller ACK",
      "in caller BYE",
      "out caller 200 OK",
      "out callee BYE",
      // Our BYE went again while it waited (Timer E), every copy logged, then its answer.
      ...Array.from({ length: summary(log).length - 13 }, () => "out callee BYE"),
      "in callee 200 OK",
    ]);
    expect(log[0]).toEqual({
      time_stamp: expect.any(String),
      direction: "in",
      method: "INVITE",
      status: null,
      fromip: "10.0.0.2:5062",
      toip: "10.0.0.1:5060",
      fromtag: "caller-tag",
      totag: null,
      first_line: "INVITE sip:14155550123@10.0.0.1 SIP/2.0",
      raw: expect.stringMatching(
        /^INVITE sip:14155550123@10\.0\.0\.1 SIP\/2\.0\r\nVia: SIP\/2\.0\/UDP 10\.0\.0\.2:5062;branch=z9hG4bKcaller-invite\r\n/,
      ),
    });
    expect(log[0]!.raw).toContain("\r\n\r\nv=0\r\n");
    // The ladder of the end event is what it was: the messages the call itself handled, without raw text.
    const ended = await node.event("ended");
    expect(ended.ladder!.length).toBeLessThan(log.length);
    expect(ended.ladder!.every((m) => m.raw === undefined)).toBe(true);
  });

  it("is closed SIP_LOG_MAX_LINGER_MS after the end at the latest, with every copy of a BYE nobody answers", async () => {
    const admission = ticket();
    node = memoryNode(async () => admission);
    node.deliver(callerInvite(), CALLER);
    await node.started();
    const [toCallee] = node.requestsTo(CALLEE, "INVITE");
    node.deliver(calleeReply(toCallee!, 200, CALLEE_SDP), CALLEE);
    const ourTag = tagOf(node.responsesTo(CALLER, 200)[0]!, "To")!;
    node.deliver(fromCaller("ACK", { toTag: ourTag }), CALLER);
    node.deliver(fromCaller("BYE", { toTag: ourTag, seq: 2 }), CALLER);
    await vi.advanceTimersByTimeAsync(SIP_LOG_MAX_LINGER_MS + SIP_LOG_QUIET_MS);
    await until(() => sipLogs(node!).length > 0);
    const log = summary(lines(sipLogs(node)[0]!.path));
    expect(log.filter((l) => l === "out callee BYE").length).toBe(node.requestsTo(CALLEE, "BYE").length);
    expect(log.filter((l) => l === "out callee BYE").length).toBeGreaterThan(5);
  });

  it("is handed over for a refusal the Worker recorded, and not kept for one it did not", async () => {
    const recorded = crypto.randomUUID();
    node = memoryNode(async () => ({ decision: "reject", sip_code: 403, reason: "blocked", call_id: recorded }));
    node.deliver(callerInvite(), CALLER);
    await node.started();
    // The ACK of a final refusal belongs to the INVITE's transaction: its Via (RFC 3261 §17.1.1.3).
    const ack = fromCaller("ACK", { toTag: tagOf(node.responsesTo(CALLER, 403)[0]!, "To") });
    ack.headers[0] = ["Via", header(callerInvite(), "Via")!];
    node.deliver(ack, CALLER);
    await vi.advanceTimersByTimeAsync(SIP_LOG_QUIET_MS);
    await until(() => sipLogs(node!).length > 0);
    expect(sipLogs(node).map((u) => u.callId)).toEqual([recorded]);
    expect(summary(lines(sipLogs(node)[0]!.path))).toEqual([
      "in caller INVITE",
      "out caller 100 Trying",
      "out caller 403 Forbidden",
      "in caller ACK",
    ]);

    await node.close();
    node = memoryNode(async () => ({ decision: "reject", sip_code: 403, reason: "blocked", call_id: null }));
    node.deliver(callerInvite(), CALLER);
    await node.started();
    await vi.advanceTimersByTimeAsync(SIP_LOG_MAX_LINGER_MS);
    await until(() => sipLogs(node!).length > 0, 0);
    expect(node.uploads).toEqual([]);
  });
});
