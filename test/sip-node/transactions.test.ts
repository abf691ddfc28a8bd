// The transaction layer over the in-memory transport pair, on a fake clock: retransmission and
// timeout behave as RFC 3261 §17 names them.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { header } from "../../sip-node/sip/headers.ts";
import type { SipRequest, SipResponse } from "../../sip-node/sip/message.ts";
import { parseMessage } from "../../sip-node/sip/parser.ts";
import { responseTo, type ServerTransaction } from "../../sip-node/sip/transactions.ts";
import { memoryPair, type Endpoint } from "../../sip-node/sip/transport.ts";
import { plainLayer } from "./plain-layer.ts";

const TIMERS = { T1: 20, T2: 80, T4: 100 };
const A = { address: "10.0.0.1", port: 5060 };
const B = { address: "10.0.0.2", port: 5060 };
const toB: Endpoint = { ...B, protocol: "udp" };
/** Moves the fake clock on, running the timers and the in-memory deliveries (setImmediate) due. */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

function request(method: string, branch = `z9hG4bK${Math.random().toString(36).slice(2)}`): SipRequest {
  return {
    kind: "request",
    method,
    uri: "sip:bob@10.0.0.2",
    version: "SIP/2.0",
    headers: [
      ["Via", `SIP/2.0/UDP 10.0.0.1:5060;branch=${branch}`],
      ["Max-Forwards", "70"],
      ["From", "<sip:alice@10.0.0.1>;tag=a1"],
      ["To", "<sip:bob@10.0.0.2>"],
      ["Call-ID", "call-1@10.0.0.1"],
      ["CSeq", `1 ${method}`],
    ],
    body: new Uint8Array(0),
  };
}

/** Two layers back to back; B's transaction user answers with `answer` (or holds the transaction). */
function pair(answer: (request: SipRequest, tx: ServerTransaction) => void) {
  const [ta, tb] = memoryPair(A, B);
  const seenByB: string[] = [];
  const a = plainLayer(ta, {}, TIMERS);
  const b = plainLayer(
    tb,
    {
      onRequest: (req, tx) => {
        seenByB.push(req.method);
        answer(req, tx);
      },
      onAck: () => seenByB.push("ACK(2xx)"),
    },
    TIMERS,
  );
  const sentBy = (t: unknown) => (t as { sent: Array<{ bytes: Uint8Array }> }).sent.map(({ bytes }) => parseMessage(bytes));
  return { a, b, seenByB, sentByA: () => sentBy(ta), sentByB: () => sentBy(tb) };
}

describe("client transactions", () => {
  it("retransmit an INVITE on Timer A until a provisional arrives, and hand every response up", async () => {
    let held: ServerTransaction | null = null;
    const { a, sentByA } = pair((_req, tx) => (held = tx));
    const responses: Array<SipResponse | null> = [];
    a.sendRequest(request("INVITE"), toB, (r) => responses.push(r));
    await elapse(TIMERS.T1 * 3.5); // sent at 0, T1, 3*T1
    expect(sentByA().filter((m) => m.kind === "request" && m.method === "INVITE")).toHaveLength(3);
    held!.respond(responseTo(held!.request, 180, "Ringing", "b1"));
    await elapse(TIMERS.T1 * 6);
    expect(sentByA().filter((m) => m.kind === "request" && m.method === "INVITE")).toHaveLength(3);
    held!.respond(responseTo(held!.request, 486, "Busy Here", "b1"));
    await elapse(10);
    expect(responses.map((r) => r?.status)).toEqual([180, 486]);
    // The ACK of a non-2xx final answer is the transaction's own, with the INVITE's branch.
    const ack = sentByA().find((m) => m.kind === "request" && m.method === "ACK") as SipRequest;
    expect(header(ack, "Via")).toBe(header(sentByA()[0]!, "Via"));
  });

  it("report a timeout (Timer B) when nothing answers within 64*T1", async () => {
    // B's transaction user holds the INVITE and never answers it.
    const { a } = pair(() => {});
    const outcomes: Array<SipResponse | null> = [];
    a.sendRequest(request("INVITE"), toB, (r) => outcomes.push(r));
    await elapse(64 * TIMERS.T1 - 1);
    expect(outcomes).toEqual([]);
    await elapse(1);
    expect(outcomes).toEqual([null]);
  });

  it("keep retransmitting a non-INVITE in Proceeding, at T2 (Timer E)", async () => {
    let held: ServerTransaction | null = null;
    const { a, sentByA } = pair((_req, tx) => {
      held = tx;
      tx.respond(responseTo(tx.request, 100, "Trying"));
    });
    a.sendRequest(request("OPTIONS"), toB, () => {});
    const sent = () => sentByA().filter((m) => m.kind === "request").length;
    await elapse(3 * TIMERS.T1 + TIMERS.T2); // sent at 0, T1, 3*T1, then the interval is capped at T2
    expect(sent()).toBe(4);
    await elapse(TIMERS.T2);
    expect(sent()).toBe(5);
    await elapse(TIMERS.T2);
    expect(sent()).toBe(6);
    held!.respond(responseTo(held!.request, 200, "OK"));
  });
});

describe("server transactions", () => {
  it("absorb a retransmitted request and answer it with the last response", async () => {
    const { a, seenByB, sentByB } = pair((req, tx) => tx.respond(responseTo(req, 200, "OK")));
    const options = request("OPTIONS", "z9hG4bKsame");
    a.sendRequest(options, toB, () => {});
    await elapse(5);
    a.sendStateless(options, toB);
    await elapse(10);
    expect(seenByB).toEqual(["OPTIONS"]);
    expect(sentByB().filter((m) => m.kind === "response")).toHaveLength(2);
  });

  it("retransmit a final INVITE error on Timer G until the ACK", async () => {
    const { a, sentByB } = pair((req, tx) => tx.respond(responseTo(req, 486, "Busy Here", "b1")));
    const invite = request("INVITE");
    // Send the INVITE without a client transaction, so nobody ACKs.
    a.sendStateless(invite, toB);
    await elapse(TIMERS.T1 * 3.5);
    const finals = () => sentByB().filter((m) => m.kind === "response" && m.status === 486).length;
    expect(finals()).toBe(3); // at 0, T1, 3*T1
    const headers = invite.headers.map(([n, v]): [string, string] => [n, n === "CSeq" ? "1 ACK" : n === "To" ? `${v};tag=b1` : v]);
    const ack: SipRequest = { ...invite, method: "ACK", headers };
    a.sendStateless(ack, toB);
    await elapse(10);
    const afterAck = finals();
    await elapse(TIMERS.T2 * 2);
    expect(finals()).toBe(afterAck);
  });
});
