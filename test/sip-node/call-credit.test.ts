// The talk time a call's credit covers, driven through the in-memory host (memory-host.ts) on a
// fake clock: the ticket's granted seconds end an answered call on both sides with
// credit_exhausted, a larger grant from the call ledger moves that moment, a smaller one does not,
// and the platform's max_call_seconds cap still applies whatever the grants.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Call } from "../../sip-node/b2bua/call.ts";
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

/** Dials, the callee answers, the caller ACKs: returns the call's session. */
async function answeredCall(n: MemoryNode): Promise<Call> {
  n.deliver(callerInvite(), CALLER);
  await n.started();
  const toCallee = n.requestsTo(CALLEE, "INVITE")[0]!;
  n.deliver(calleeReply(toCallee, 180), CALLEE);
  n.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
  n.deliver(fromCaller("ACK", { toTag: tagOf(n.responsesTo(CALLER, 200)[0]!, "To") }), CALLER);
  return [...n.live][0]!;
}

const byes = (n: MemoryNode) => [n.requestsTo(CALLER, "BYE").length, n.requestsTo(CALLEE, "BYE").length];

describe("the credit a call's ticket grants", () => {
  it("ends the answered call on both sides when talk reaches the granted seconds", async () => {
    node = memoryNode(async () => ticket({ granted_seconds: 60 }));
    await answeredCall(node);
    await vi.advanceTimersByTimeAsync(59_900);
    expect(byes(node)).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(100);
    expect(byes(node)).toEqual([1, 1]);
    expect(await node.event("ended")).toMatchObject({ sip_code: 200, hangup_by: "platform", end_reason: "credit_exhausted" });
  });

  it("counts talk from the answer, not from the INVITE: ringing costs no granted time", async () => {
    node = memoryNode(async () => ticket({ granted_seconds: 30 }));
    node.deliver(callerInvite(), CALLER);
    await node.started();
    const toCallee = node.requestsTo(CALLEE, "INVITE")[0]!;
    node.deliver(calleeReply(toCallee, 180), CALLEE);
    await vi.advanceTimersByTimeAsync(15_000); // 15 s of ringing
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    node.deliver(fromCaller("ACK", { toTag: tagOf(node.responsesTo(CALLER, 200)[0]!, "To") }), CALLER);
    const answeredAt = Date.now();
    await vi.advanceTimersByTimeAsync(29_000);
    expect(byes(node)).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(byes(node)).toEqual([1, 1]);
    const ended = await node.event("ended");
    expect(Date.parse(ended.at) - answeredAt).toBe(30_000);
    expect(ended.end_reason).toBe("credit_exhausted");
  });
});

describe("grants from the call ledger", () => {
  it("extend the call when a grant grows, and cut it at the newest grant", async () => {
    node = memoryNode(async () => ticket({ granted_seconds: 60 }));
    const session = await answeredCall(node);
    const answeredAt = Date.now();
    // Each grant asks for a report to the ledger 2 s before it runs out (in time for a top-up).
    expect(node.renewals).toEqual([answeredAt + 58_000]);
    await vi.advanceTimersByTimeAsync(50_000);
    session.grant(120);
    expect(node.renewals.at(-1)).toBe(answeredAt + 118_000);
    await vi.advanceTimersByTimeAsync(20_000); // 70 s: past the first grant
    expect(byes(node)).toEqual([0, 0]);
    session.grant(90); // grants only grow: a smaller one changes nothing
    await vi.advanceTimersByTimeAsync(40_000); // 110 s
    expect(byes(node)).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(10_000); // 120 s
    expect(byes(node)).toEqual([1, 1]);
    expect(await node.event("ended")).toMatchObject({ hangup_by: "platform", end_reason: "credit_exhausted" });
  });

  it("take effect at the answer when they came while the call rang", async () => {
    node = memoryNode(async () => ticket({ granted_seconds: 10 }));
    node.deliver(callerInvite(), CALLER);
    await node.started();
    [...node.live][0]!.grant(40);
    const toCallee = node.requestsTo(CALLEE, "INVITE")[0]!;
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    node.deliver(fromCaller("ACK", { toTag: tagOf(node.responsesTo(CALLER, 200)[0]!, "To") }), CALLER);
    await vi.advanceTimersByTimeAsync(39_000);
    expect(byes(node)).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(byes(node)).toEqual([1, 1]);
  });

  it("leave the end to max_call_seconds when they cover the whole cap", async () => {
    node = memoryNode(async () => ticket({ granted_seconds: 60, max_call_seconds: 60 }));
    await answeredCall(node);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(byes(node)).toEqual([1, 1]);
    expect(await node.event("ended")).toMatchObject({ end_reason: "max_call_seconds" });
  });

  it("never carry a call past max_call_seconds", async () => {
    node = memoryNode(async () => ticket({ granted_seconds: 30, max_call_seconds: 100 }));
    const session = await answeredCall(node);
    session.grant(500);
    await vi.advanceTimersByTimeAsync(100_000);
    expect(byes(node)).toEqual([1, 1]);
    expect(await node.event("ended")).toMatchObject({ end_reason: "max_call_seconds" });
  });
});
