// A B2BUA call (sip-node/b2bua/call.ts), the call state machine, driven through an in-memory host (memory-host.ts): the
// test plays the caller and the callee, the Worker admits from memory, time is a fake clock.
// Every assertion is on what a party or the Worker sees: SIP statuses and requests on the wire,
// SDP anchored at the relay, and the events reported.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AdmitResponse, CallEvent } from "../../schema/node-api.ts";
import type { Call } from "../../sip-node/b2bua/call.ts";
import { header } from "../../sip-node/sip/headers.ts";
import { parseCSeq } from "../../sip-node/sip/parser.ts";
import type { SipRequest } from "../../sip-node/sip/message.ts";
import { responseTo } from "../../sip-node/sip/transactions.ts";
import {
  bodyOf,
  CALLEE,
  CALLEE_SDP,
  calleeReply,
  CALLER,
  CALLER_ACCOUNT,
  CALLER_SDP,
  callerInvite,
  fromCallee,
  fromCaller,
  memoryNode,
  NO_ANSWER_MS,
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

/**
 * Lets promise chains that wait on real I/O (the relay's files) run until `done`, within 10 s of
 * real time (not a fixed number of event-loop turns, which a loaded machine can outlast); the fake
 * clock stays put. With no `done`, for `windowMs` of real time: a window in which nothing may happen.
 */
async function settled(done?: () => boolean, windowMs = 50): Promise<void> {
  const deadline = performance.now() + (done ? 10_000 : windowMs);
  while (!done?.() && performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  if (done && !done()) throw new Error("timed out waiting for the call's promise chains");
}

/** The status of the last event reported when it is a transfer's. */
const lastTransfer = (n: MemoryNode) => {
  const last = n.events.at(-1);
  return last?.type === "transfer" ? last.status : null;
};

const admitWith = (answer: AdmitResponse) => memoryNode(async () => answer);

/** The caller's INVITE reaches the node, which admits the call and dials the callee; returns our INVITE to the callee. */
async function dial(n: MemoryNode, invite = callerInvite()): Promise<SipRequest> {
  n.deliver(invite, CALLER);
  await n.started();
  const [toCallee] = n.requestsTo(CALLEE, "INVITE");
  expect(toCallee, "the callee was dialled").toBeDefined();
  return toCallee!;
}

/** Dials, the callee rings and answers, the caller ACKs: returns the two dialogs' handles. */
async function answeredCall(n: MemoryNode) {
  const toCallee = await dial(n);
  n.deliver(calleeReply(toCallee, 180), CALLEE);
  n.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
  const ok = n.responsesTo(CALLER, 200)[0]!;
  const ourTag = tagOf(ok, "To")!;
  n.deliver(fromCaller("ACK", { toTag: ourTag }), CALLER);
  return { toCallee, ok, ourTag, session: [...n.live][0]! as Call };
}

/** How many transactions the requests make (a retransmission repeats its Via). */
const transactions = (requests: SipRequest[]) => new Set(requests.map((r) => header(r, "Via"))).size;
const seqOf = (request: SipRequest) => parseCSeq(header(request, "CSeq")!).seq;
const sdpPort = (sdp: string) => Number(/^m=audio (\d+)/m.exec(sdp)?.[1]);
const eventTypes = (events: CallEvent[]) => events.map((e) => (e.type === "transfer" ? `transfer ${e.status}` : e.type));

describe("a call answered and hung up", () => {
  it("relays 100, 180 and 200 to the caller, anchors both offers at the relay, and reports answered then ended", async () => {
    const admission = ticket();
    node = admitWith(admission);
    const toCallee = await dial(node);

    expect(node.admissions).toEqual([
      {
        node_id: "memory-node",
        // This run of the node, and the account whose whitelist range holds the caller: its ledger alone decides.
        boot_id: "memory-boot",
        customer_id: CALLER_ACCOUNT,
        sip_call_id: "caller-call@10.0.0.2",
        src_ip: "10.0.0.2",
        src_port: 5062,
        ani: "14155550100",
        dialed: "14155550123",
        origin: "sip",
      },
    ]);
    // Our own leg to the destination: the ticket's number, our Call-ID and From, the offer anchored.
    expect(toCallee.uri).toBe("sip:14155550123@10.0.0.3:5070");
    expect(header(toCallee, "Call-ID")).not.toBe("caller-call@10.0.0.2");
    expect(header(toCallee, "From")).toMatch(/^"Alice" <sip:14155550100@10\.0\.0\.1>;tag=/);
    const relay = [...node.relays][0]!;
    expect(bodyOf(toCallee)).toContain("c=IN IP4 10.0.0.1\r\n");
    expect(bodyOf(toCallee)).not.toContain("10.0.0.2");
    expect(sdpPort(bodyOf(toCallee))).toBe(relay.localPort("callee"));

    await vi.advanceTimersByTimeAsync(300);
    node.deliver(calleeReply(toCallee, 180), CALLEE);
    await vi.advanceTimersByTimeAsync(700);
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);

    expect(node.statusesTo(CALLER)).toEqual([100, 180, 200]);
    const ok = node.responsesTo(CALLER, 200)[0]!;
    expect(bodyOf(ok)).toContain("c=IN IP4 10.0.0.1\r\n");
    expect(sdpPort(bodyOf(ok))).toBe(relay.localPort("caller"));
    expect(header(ok, "Contact")).toBe("<sip:10.0.0.1:5060>");
    // The callee's 200 is ACKed by us at once, at its Contact, in its INVITE's CSeq.
    const [ack] = node.requestsTo(CALLEE, "ACK");
    expect(ack).toMatchObject({ uri: "sip:bob@10.0.0.3:5070" });
    expect(header(ack!, "CSeq")).toBe(`${seqOf(toCallee)} ACK`);
    expect(tagOf(ack!, "To")).toBe("callee-tag");
    const answered = await node.event("answered");
    expect(answered).toEqual({ type: "answered", at: expect.any(String), codec: "PCMU" });

    const ourTag = tagOf(ok, "To")!;
    node.deliver(fromCaller("ACK", { toTag: ourTag }), CALLER);
    await vi.advanceTimersByTimeAsync(TIMERS.T1 * 8);
    expect(node.statusesTo(CALLER), "no 200 retransmitted after the ACK").toEqual([100, 180, 200]);

    node.deliver(fromCaller("BYE", { toTag: ourTag, seq: 2 }), CALLER);
    expect(node.statusesTo(CALLER, "BYE")).toEqual([200]);
    const [bye] = node.requestsTo(CALLEE, "BYE");
    expect(header(bye!, "Call-ID")).toBe(header(toCallee, "Call-ID"));
    node.deliver(calleeReply(bye!, 200), CALLEE);

    const ended = await node.event("ended");
    expect(ended).toMatchObject({
      answered_at: answered.at,
      sip_code: 200,
      hangup_by: "caller",
      q850_cause: 16,
      end_reason: null,
      pdd_ms: 300,
      answer_delay_ms: 700,
      early_media: false,
      codec: "PCMU",
      media_ip: "10.0.0.1",
    });
    expect(ended.ladder![0]).toMatchObject({ direction: "in", method: "INVITE", fromip: "10.0.0.2:5062", toip: "10.0.0.1:5060" });
    expect(ended.ladder!.map((m) => `${m.direction} ${m.status ?? m.method}`)).toEqual(
      expect.arrayContaining(["out INVITE", "in 180 Ringing", "out 200 OK", "out ACK", "in BYE", "out BYE"]),
    );
    expect(eventTypes(node.events)).toEqual(["answered", "ended"]);
    expect(node.live.size, "the session is forgotten").toBe(0);
    expect(node.relays.size, "the relay is closed").toBe(0);
  });

  it("ends both legs when the callee hangs up", async () => {
    node = admitWith(ticket());
    const { toCallee } = await answeredCall(node);
    node.deliver(fromCallee(toCallee, "BYE"), CALLEE);
    expect(node.statusesTo(CALLEE, "BYE")).toEqual([200]);
    expect(node.requestsTo(CALLER, "BYE")).toHaveLength(1);
    expect(await node.event("ended")).toMatchObject({ sip_code: 200, hangup_by: "callee" });
  });

  it("retransmits the 200 to the caller until its ACK (T1, doubling)", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    await vi.advanceTimersByTimeAsync(TIMERS.T1);
    expect(node.responsesTo(CALLER, 200)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(TIMERS.T1 * 2);
    expect(node.responsesTo(CALLER, 200)).toHaveLength(3);
    node.deliver(fromCaller("ACK", { toTag: tagOf(node.responsesTo(CALLER, 200)[0]!, "To") }), CALLER);
    await vi.advanceTimersByTimeAsync(TIMERS.T2 * 4);
    expect(node.responsesTo(CALLER, 200)).toHaveLength(3);
    expect(node.events.map((e) => e.type)).toEqual(["answered"]);
  });

  it("hangs up both legs when the caller never ACKs the 200 (64*T1)", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    await vi.advanceTimersByTimeAsync(64 * TIMERS.T1 - TIMERS.T2);
    expect(node.requestsTo(CALLER, "BYE")).toEqual([]);
    // The retransmission due after 64*T1 finds the ACK missing.
    await vi.advanceTimersByTimeAsync(2 * TIMERS.T2);
    expect(transactions(node.requestsTo(CALLER, "BYE"))).toBe(1);
    expect(transactions(node.requestsTo(CALLEE, "BYE"))).toBe(1);
    expect(await node.event("ended")).toMatchObject({ sip_code: 200, hangup_by: "platform", end_reason: "no_ack" });
  });

  it("ACKs the callee's 200 again when it comes back (our ACK was lost)", async () => {
    node = admitWith(ticket());
    const { toCallee } = await answeredCall(node);
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    const acks = node.requestsTo(CALLEE, "ACK");
    expect(acks).toHaveLength(2);
    expect(header(acks[1]!, "Via")).toBe(header(acks[0]!, "Via"));
  });

  it("hangs up both legs at max_call_seconds, and on a hang-up command", async () => {
    node = admitWith(ticket({ max_call_seconds: 60 }));
    await answeredCall(node);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(node.requestsTo(CALLER, "BYE")).toHaveLength(1);
    expect(node.requestsTo(CALLEE, "BYE")).toHaveLength(1);
    expect(await node.event("ended")).toMatchObject({ hangup_by: "platform", end_reason: "max_call_seconds" });
    await node.close();

    node = admitWith(ticket());
    const { session } = await answeredCall(node);
    session.hangUp("hangup_requested");
    expect(node.requestsTo(CALLER, "BYE")).toHaveLength(1);
    expect(node.requestsTo(CALLEE, "BYE")).toHaveLength(1);
    expect(await node.event("ended")).toMatchObject({ hangup_by: "platform", end_reason: "hangup_requested" });
  });

  it("passes a re-INVITE from the caller to the callee and its answer back, both anchored at the relay", async () => {
    node = admitWith(ticket());
    const { toCallee, ourTag } = await answeredCall(node);
    const hold = CALLER_SDP.replace("a=rtpmap:101", "a=sendonly\r\na=rtpmap:101");
    node.deliver(fromCaller("INVITE", { toTag: ourTag, seq: 2, body: hold }), CALLER);
    const reinvite = node.requestsTo(CALLEE, "INVITE")[1]!;
    expect(header(reinvite, "Call-ID")).toBe(header(toCallee, "Call-ID"));
    expect(seqOf(reinvite), "the next CSeq of our leg to the callee").toBe(seqOf(toCallee) + 1);
    expect(bodyOf(reinvite)).toContain("a=sendonly");
    expect(bodyOf(reinvite)).toContain("c=IN IP4 10.0.0.1\r\n");
    node.deliver(calleeReply(reinvite, 200, CALLEE_SDP.replace("a=rtpmap:0", "a=recvonly\r\na=rtpmap:0")), CALLEE);
    expect(header(node.requestsTo(CALLEE, "ACK")[1]!, "CSeq")).toBe(`${seqOf(reinvite)} ACK`);
    const relayed = node.responsesTo(CALLER, 200).find((r) => header(r, "CSeq") === "2 INVITE")!;
    expect(bodyOf(relayed)).toContain("a=recvonly");
    expect(bodyOf(relayed)).toContain("c=IN IP4 10.0.0.1\r\n");
  });
});

describe("a call that is never answered", () => {
  it.each([
    [403, "blocked_ani"],
    [402, "no_credit"],
  ])("answers the caller with the Worker's refusal %i, dials nothing and reports nothing", async (code, reason) => {
    node = admitWith({ decision: "reject", sip_code: code, reason, call_id: null });
    node.deliver(callerInvite(), CALLER);
    await node.started();
    expect(node.statusesTo(CALLER)).toEqual([100, code]);
    expect(tagOf(node.responsesTo(CALLER, code)[0]!, "To")).toBeTruthy();
    expect(node.requestsTo(CALLEE, "INVITE")).toEqual([]);
    await settled(); // deliberate: a window in which no event may be reported
    expect(node.events).toEqual([]);
    expect(node.live.size).toBe(0);
  });

  it("answers 503 when the admission cannot be had, and logs it under the call's Call-ID", async () => {
    node = memoryNode(() => Promise.reject(new Error("worker unreachable")));
    node.deliver(callerInvite(), CALLER);
    await node.started();
    expect(node.statusesTo(CALLER)).toEqual([100, 503]);
    expect(node.requestsTo(CALLEE, "INVITE")).toEqual([]);
    expect(node.logs).toEqual(["warn call caller-call@10.0.0.2: admission failed: Error: worker unreachable"]);
  });

  it("relays a busy callee's 486 and reports it as the callee's", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    node.deliver(calleeReply(toCallee, 486), CALLEE);
    expect(node.statusesTo(CALLER)).toEqual([100, 486]);
    expect(node.requestsTo(CALLEE, "ACK"), "the 486 is ACKed by its transaction").toHaveLength(1);
    expect(await node.event("ended")).toMatchObject({ sip_code: 486, hangup_by: "callee", q850_cause: 17, answered_at: null });
  });

  it("cancels a ringing call: 200 to the CANCEL, 487 to the caller, CANCEL to the callee with its INVITE's branch", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    await vi.advanceTimersByTimeAsync(250);
    node.deliver(calleeReply(toCallee, 180, CALLEE_SDP), CALLEE);
    node.deliver(fromCaller("CANCEL"), CALLER);

    expect(node.statusesTo(CALLER, "CANCEL")).toEqual([200]);
    expect(node.statusesTo(CALLER)).toEqual([100, 180, 487]);
    const [cancel] = node.requestsTo(CALLEE, "CANCEL");
    expect(cancel!.uri).toBe(toCallee.uri);
    expect(header(cancel!, "Via")).toBe(header(toCallee, "Via"));
    expect(header(cancel!, "CSeq")).toBe(`${seqOf(toCallee)} CANCEL`);
    node.deliver(calleeReply(cancel!, 200), CALLEE);
    node.deliver(calleeReply(toCallee, 487), CALLEE);
    expect(node.statusesTo(CALLER), "the callee's 487 is not relayed twice").toEqual([100, 180, 487]);

    const ended = await node.event("ended");
    expect(ended).toMatchObject({
      sip_code: 487,
      hangup_by: "caller",
      end_reason: "cancelled",
      answered_at: null,
      pdd_ms: 250,
      early_media: true,
    });
    expect(eventTypes(node.events)).toEqual(["ended"]);
  });

  it("answers a CANCEL that comes during admission with 487 once admitted, without dialling", async () => {
    let admit!: (answer: AdmitResponse) => void;
    node = memoryNode(() => new Promise((resolve) => (admit = resolve)));
    node.deliver(callerInvite(), CALLER);
    node.deliver(fromCaller("CANCEL"), CALLER);
    expect(node.statusesTo(CALLER, "CANCEL")).toEqual([200]);
    expect(node.statusesTo(CALLER)).toEqual([100]);
    admit(ticket());
    await node.started();
    expect(node.statusesTo(CALLER)).toEqual([100, 487]);
    expect(node.requestsTo(CALLEE, "INVITE")).toEqual([]);
    expect(await node.event("ended")).toMatchObject({ sip_code: 487, hangup_by: "caller", end_reason: "cancelled" });
  });

  it("gives up on a callee that rings too long: CANCEL to it, 480 to the caller", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    node.deliver(calleeReply(toCallee, 180), CALLEE);
    await vi.advanceTimersByTimeAsync(NO_ANSWER_MS - 1);
    expect(node.requestsTo(CALLEE, "CANCEL")).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(node.requestsTo(CALLEE, "CANCEL")).toHaveLength(1);
    expect(node.statusesTo(CALLER)).toEqual([100, 180, 480]);
    expect(await node.event("ended")).toMatchObject({ sip_code: 480, hangup_by: "platform", end_reason: "no_answer" });
  });

  it("ACKs and hangs up a callee whose 200 crosses the caller's CANCEL", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    node.deliver(calleeReply(toCallee, 180, CALLEE_SDP), CALLEE);
    node.deliver(fromCaller("CANCEL"), CALLER);
    expect(node.statusesTo(CALLER)).toEqual([100, 180, 487]);
    // The callee answered before our CANCEL reached it.
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    expect(node.requestsTo(CALLEE, "ACK"), "the callee's 200 is ACKed").toHaveLength(1);
    expect(node.requestsTo(CALLEE, "BYE"), "and the dialog it opened is closed").toHaveLength(1);
    expect(node.statusesTo(CALLER), "the caller hears nothing more").toEqual([100, 180, 487]);
    expect(await node.event("ended")).toMatchObject({ sip_code: 487, hangup_by: "caller", end_reason: "cancelled" });
  });

  it("ACKs and hangs up a callee whose 200 crosses the CANCEL we sent when it rang too long", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    node.deliver(calleeReply(toCallee, 180), CALLEE);
    await vi.advanceTimersByTimeAsync(NO_ANSWER_MS);
    expect(node.requestsTo(CALLEE, "CANCEL")).toHaveLength(1);
    expect(node.statusesTo(CALLER)).toEqual([100, 180, 480]);
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    expect(node.requestsTo(CALLEE, "ACK"), "the callee's 200 is ACKed").toHaveLength(1);
    expect(node.requestsTo(CALLEE, "BYE"), "and the dialog it opened is closed").toHaveLength(1);
    expect(node.statusesTo(CALLER), "the caller hears nothing more").toEqual([100, 180, 480]);
    expect(await node.event("ended")).toMatchObject({ sip_code: 480, hangup_by: "platform", end_reason: "no_answer" });
  });

  it("answers a CANCEL that comes while the destination's address is looked up with 487, without dialling", async () => {
    let resolved!: (address: string) => void;
    node = memoryNode(
      async () => ticket(),
      () => new Promise((resolve) => (resolved = resolve)),
    );
    node.deliver(callerInvite(), CALLER);
    await settled(() => resolved !== undefined);
    node.deliver(fromCaller("CANCEL"), CALLER);
    expect(node.statusesTo(CALLER, "CANCEL")).toEqual([200]);
    resolved(CALLEE.address);
    await node.started();
    expect(node.statusesTo(CALLER)).toEqual([100, 487]);
    expect(node.requestsTo(CALLEE, "INVITE")).toEqual([]);
    expect(await node.event("ended")).toMatchObject({ sip_code: 487, hangup_by: "caller", end_reason: "cancelled" });
  });
});

describe("late offer", () => {
  it("holds the callee's ACK until the caller's, and sends it with the caller's answer anchored at the relay", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node, callerInvite(null));
    expect(toCallee.body).toHaveLength(0);
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    const ok = node.responsesTo(CALLER, 200)[0]!;
    expect(bodyOf(ok)).toContain("c=IN IP4 10.0.0.1\r\n");
    expect(node.requestsTo(CALLEE, "ACK"), "no ACK before the caller's answer").toEqual([]);
    node.deliver(calleeReply(toCallee, 200, CALLEE_SDP), CALLEE);
    expect(node.requestsTo(CALLEE, "ACK"), "a 200 coming back waits for the caller's ACK too").toEqual([]);

    node.deliver(fromCaller("ACK", { toTag: tagOf(ok, "To"), body: CALLER_SDP }), CALLER);
    const [ack] = node.requestsTo(CALLEE, "ACK");
    expect(header(ack!, "Content-Type")).toBe("application/sdp");
    expect(bodyOf(ack!)).toContain("c=IN IP4 10.0.0.1\r\n");
    expect(sdpPort(bodyOf(ack!))).toBe([...node.relays][0]!.localPort("callee"));
  });
});

describe("transfers", () => {
  it("bridges the caller to the target at the destination (platform) and hangs up the old callee", async () => {
    const admission = ticket();
    admission.destination.tech_prefix = "99";
    node = admitWith(admission);
    const { toCallee, ourTag, session } = await answeredCall(node);

    expect(session.transfer("15550001111", "platform")).toEqual({ status: "in_progress" });
    const toTarget = node.requestsTo(CALLEE, "INVITE")[1]!;
    expect(toTarget.uri).toBe("sip:9915550001111@10.0.0.3:5070");
    expect(header(toTarget, "Call-ID")).not.toBe(header(toCallee, "Call-ID"));
    expect(bodyOf(toTarget), "the caller's offer as the first callee got it").toBe(bodyOf(toCallee));
    expect(() => session.transfer("15550002222", "platform")).toThrow(/already under way/);

    node.deliver(calleeReply(toTarget, 200, CALLEE_SDP, "target-tag"), CALLEE);
    const ackToTarget = node.requestsTo(CALLEE, "ACK").find((a) => header(a, "Call-ID") === header(toTarget, "Call-ID"));
    expect(ackToTarget).toBeDefined();
    const [byeToOld] = node.requestsTo(CALLEE, "BYE");
    expect(header(byeToOld!, "Call-ID")).toBe(header(toCallee, "Call-ID"));
    await settled(() => lastTransfer(node!) === "completed");
    expect(node.events.at(-1)).toMatchObject({ type: "transfer", mode: "platform", status: "completed", code: 200, target: "15550001111" });

    // The caller's BYE now ends the call with the new callee.
    node.deliver(fromCaller("BYE", { toTag: ourTag, seq: 2 }), CALLER);
    const byes = node.requestsTo(CALLEE, "BYE");
    expect(header(byes.at(-1)!, "Call-ID")).toBe(header(toTarget, "Call-ID"));
    expect(await node.event("ended")).toMatchObject({ hangup_by: "caller", sip_code: 200 });
  });

  it("asks the caller's side to call the target (REFER) and reports what its NOTIFY says", async () => {
    node = admitWith(ticket());
    const { ourTag, session } = await answeredCall(node);
    session.transfer("15550001111", "refer");
    const [refer] = node.requestsTo(CALLER, "REFER");
    expect(header(refer!, "Refer-To")).toBe("<sip:15550001111@10.0.0.2>");
    node.deliver(responseTo(refer!, 202, "Accepted"), CALLER);
    await settled(() => lastTransfer(node!) === "accepted");
    expect(node.events.at(-1)).toMatchObject({ type: "transfer", mode: "refer", status: "accepted", code: 202 });

    const notify = fromCaller("NOTIFY", {
      toTag: ourTag,
      seq: 2,
      body: "SIP/2.0 200 OK\r\n",
      contentType: "message/sipfrag",
      extra: [["Event", "refer"]],
    });
    node.deliver(notify, CALLER);
    expect(node.statusesTo(CALLER, "NOTIFY")).toEqual([200]);
    expect(node.requestsTo(CALLEE, "NOTIFY"), "the NOTIFY is ours, not the callee's").toEqual([]);
    await settled(() => lastTransfer(node!) === "completed");
    expect(eventTypes(node.events)).toEqual(["answered", "transfer accepted", "transfer completed"]);
    expect(node.events.at(-1)).toMatchObject({ type: "transfer", mode: "refer", status: "completed", code: 200 });
  });

  it("refuses to transfer a call that is not up", async () => {
    node = admitWith(ticket());
    const toCallee = await dial(node);
    node.deliver(calleeReply(toCallee, 180), CALLEE);
    const session = [...node.live][0]!;
    expect(() => session.transfer("15550001111", "platform")).toThrow(/only a call that is up/);
    session.hangUp("hangup_requested");
    expect(node.statusesTo(CALLER)).toEqual([100, 180, 480]);
    expect(node.requestsTo(CALLEE, "CANCEL")).toHaveLength(1);
  });
});
