// An in-memory host for B2BUA calls: the node's real transaction layer over a wire that keeps
// every message the node sends, the node's call router and registry (dialogs found by Call-ID and
// our tag, messages on the wire by Call-ID for each call's SIP log) with a front standing in for
// the B2BUA (every INVITE outside a dialog is a call, a CANCEL is answered as the node answers
// it), a Worker that admits from memory and keeps the events reported (numbered per call, as the
// call reporter numbers them), and real media relays on loopback so SDP bodies are anchored as in
// production, and each call's SIP log written to a temporary spool. The test plays the caller and
// the callee by delivering messages and reading what reached them.
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AdmissionTicket, AdmitRequest, AdmitResponse, CallEvent } from "../../schema/node-api.ts";
import { Call, type CallHost } from "../../sip-node/b2bua/call.ts";
import { answerCancel } from "../../sip-node/b2bua/incoming-cancel.ts";
import { CallRouter } from "../../sip-node/calls/call-router.ts";
import { CallRegistry } from "../../sip-node/calls/registry.ts";
import { reasonPhrase } from "../../sip-node/sip/causes.ts";
import { PortAllocator } from "../../sip-node/media/ports.ts";
import { MediaRelay, type MediaFile } from "../../sip-node/media/relay.ts";
import { SipLogWriter } from "../../sip-node/media/sip-log.ts";
import { header } from "../../sip-node/sip/headers.ts";
import type { SipMessage, SipRequest, SipResponse } from "../../sip-node/sip/message.ts";
import { parseCSeq, parseMessage, parseNameAddr } from "../../sip-node/sip/parser.ts";
import { serializeMessage } from "../../sip-node/sip/serializer.ts";
import { responseTo, TransactionLayer, type TimerValues } from "../../sip-node/sip/transactions.ts";
import type { Endpoint, Inbound, Transport } from "../../sip-node/sip/transport.ts";

export const NODE = { address: "10.0.0.1", port: 5060 };
export const CALLER: Endpoint = { address: "10.0.0.2", port: 5062, protocol: "udp" };
export const CALLEE: Endpoint = { address: "10.0.0.3", port: 5070, protocol: "udp" };
/** The account whose whitelist range holds the caller's address, in the node's copy of the whitelist. */
export const CALLER_ACCOUNT = "7d3f1c2a-5b6e-4f80-9a1b-2c3d4e5f6a7b";
export const TIMERS: TimerValues = { T1: 500, T2: 4_000, T4: 5_000 };
export const NO_ANSWER_MS = 20_000;

/** The caller's offer: PCMU and telephone-event at 10.0.0.2:4000. */
export const CALLER_SDP =
  "v=0\r\no=- 1 1 IN IP4 10.0.0.2\r\ns=-\r\nc=IN IP4 10.0.0.2\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0 101\r\n" +
  "a=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\n";
/** The callee's answer: PCMU at 10.0.0.3:6000. */
export const CALLEE_SDP =
  "v=0\r\no=- 2 2 IN IP4 10.0.0.3\r\ns=-\r\nc=IN IP4 10.0.0.3\r\nt=0 0\r\nm=audio 6000 RTP/AVP 0\r\n" + "a=rtpmap:0 PCMU/8000\r\n";

export function ticket(overrides: Partial<AdmissionTicket> = {}): AdmissionTicket {
  return {
    decision: "admit",
    call_id: randomUUID(),
    customer_id: randomUUID(),
    dialed: "14155550123",
    ani: "14155550100",
    destination: {
      id: "destination-1",
      host: CALLEE.address,
      port: CALLEE.port,
      transport: "udp",
      kind: "sip",
      provider: null,
      agent_id: null,
      tech_prefix: null,
      auth: null,
    },
    max_call_seconds: 3_600,
    granted_seconds: 3_600,
    processing: "full",
    sampled: false,
    sub_customer: null,
    route: "default",
    ...overrides,
  };
}

/** Every message the node sends, kept parsed; messages from peers are delivered as bytes. */
class Wire implements Transport {
  readonly protocol = "udp" as const;
  readonly local = NODE;
  readonly sent: Array<{ message: SipMessage; to: Endpoint }> = [];
  private handler: Inbound = () => {};

  send(bytes: Uint8Array, to: Endpoint): void {
    this.sent.push({ message: parseMessage(bytes), to });
  }

  onReceive(handler: Inbound): void {
    this.handler = handler;
  }

  async close(): Promise<void> {}

  deliver(message: SipMessage, from: Endpoint): void {
    this.handler(serializeMessage(message), from);
  }
}

const base = 50_000 + (process.pid % 50) * 100;
const ports = new PortAllocator({ portMin: base, portMax: base + 99 }, "127.0.0.1");
const spoolDir = mkdtempSync(join(tmpdir(), "call-session-test-"));

export type MemoryNode = ReturnType<typeof memoryNode>;

/**
 * A node with one in-memory host; `admit` decides each admission (a promise the test may hold), as
 * `resolve` does the destination's address (the host name itself by default).
 */
export function memoryNode(
  admit: (request: AdmitRequest) => Promise<AdmitResponse>,
  resolve: (host: string) => Promise<string> = async (name) => name,
) {
  const wire = new Wire();
  const admissions: AdmitRequest[] = [];
  const events: CallEvent[] = [];
  /** Every event reported, with its call and its number in the call. */
  const reported: Array<{ callId: string; customerId: string; seq: number; event: CallEvent }> = [];
  const seqs = new Map<string, number>();
  /** When calls asked for a report to the ledger by (their covered time running out). */
  const renewals: number[] = [];
  const waiting: Array<{ type: CallEvent["type"]; resolve: (event: CallEvent) => void }> = [];
  const relays = new Set<MediaRelay>();
  const silence = new Map<MediaRelay, () => void>();
  const uploads: Array<MediaFile & { callId: string }> = [];
  const starts: Array<Promise<void>> = [];
  const logs: string[] = [];
  const calls = new CallRegistry((line) => logs.push(line));
  const router = new CallRouter(calls, {
    admits: () => true,
    onRequest(request, tx, from, bytes) {
      if (request.method === "CANCEL") {
        return answerCancel(request, tx, layer, (invite) => calls.all(Call).find((call) => call.answers(invite)));
      }
      if (request.method !== "INVITE") return tx.respond(responseTo(request, 481, reasonPhrase(481)));
      const call = new Call(host, request, tx, from);
      calls.add(call);
      call.onWire("in", request, bytes, from);
      starts.push(call.start());
    },
  });
  const layer = new TransactionLayer(wire, router, TIMERS);
  router.attach(layer);

  const host: CallHost = {
    layer,
    worker: {
      admit: async (request) => {
        admissions.push(request);
        return admit(request);
      },
    },
    reporter: {
      report: (callId, customerId, event) => {
        const seq = (seqs.get(callId) ?? 0) + 1;
        seqs.set(callId, seq);
        reported.push({ callId, customerId, seq, event });
        events.push(event);
        for (const waiter of waiting.filter((w) => w.type === event.type)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      },
    },
    bootId: "memory-boot",
    renewCredit: (atMs) => void renewals.push(atMs),
    accountOf: (address) => (address === CALLER.address ? CALLER_ACCOUNT : undefined),
    media: {
      open: async (callId, policy) => {
        const relay = await MediaRelay.open(ports, { callId, publicAddress: NODE.address, spoolDir, ...policy });
        relays.add(relay);
        return relay;
      },
      watch: (relay, onSilence) => void silence.set(relay, onSilence),
      close: (relay) => {
        relays.delete(relay);
        return relay.close();
      },
      upload: async (callId, files) => void uploads.push(...files.map((f) => ({ ...f, callId }))),
      openSipLog: (callId) => new SipLogWriter(join(spoolDir, `${callId}-sip-log.jsonl`)),
    },
    nodeId: "memory-node",
    noAnswerMs: NO_ANSWER_MS,
    local: NODE,
    resolve,
    calls,
    log: (line) => void logs.push(line),
  };

  const sentTo = (peer: Endpoint) =>
    wire.sent.filter(({ to }) => to.address === peer.address && to.port === peer.port).map(({ message }) => message);

  return {
    wire,
    layer,
    admissions,
    events,
    reported,
    renewals,
    relays,
    silence,
    /** The calls up now. */
    get live() {
      return new Set(calls.all(Call));
    },
    logs,
    /** Files handed to the Worker, in order. */
    uploads,
    /** Waits for every call started so far to have been admitted and dialled. */
    started: () => Promise.all(starts),
    /** The next event of `type` the Worker gets (or the one it already got). */
    event<T extends CallEvent["type"]>(type: T): Promise<Extract<CallEvent, { type: T }>> {
      const seen = events.find((e) => e.type === type);
      if (seen) return Promise.resolve(seen as Extract<CallEvent, { type: T }>);
      return new Promise((resolve) => waiting.push({ type, resolve: resolve as (event: CallEvent) => void }));
    },
    deliver: (message: SipMessage, from: Endpoint) => wire.deliver(message, from),
    /** Requests of `method` that reached `peer`. */
    requestsTo: (peer: Endpoint, method: string) =>
      sentTo(peer).filter((m): m is SipRequest => m.kind === "request" && m.method === method),
    /** Statuses of the responses to `method` that reached `peer`, in order. */
    statusesTo: (peer: Endpoint, method = "INVITE") =>
      sentTo(peer)
        .filter((m): m is SipResponse => m.kind === "response" && parseCSeq(header(m, "CSeq")!).method === method)
        .map((m) => m.status),
    responsesTo: (peer: Endpoint, status: number) =>
      sentTo(peer).filter((m): m is SipResponse => m.kind === "response" && m.status === status),
    /** Closes relays of calls a test left up. */
    async close() {
      await Promise.all([...relays].map((relay) => relay.close()));
      relays.clear();
    },
  };
}

const text = (body: string) => new TextEncoder().encode(body);

/** The caller's INVITE (without SDP for a late offer). */
export function callerInvite(sdp: string | null = CALLER_SDP): SipRequest {
  return {
    kind: "request",
    method: "INVITE",
    uri: "sip:14155550123@10.0.0.1",
    version: "SIP/2.0",
    headers: [
      ["Via", "SIP/2.0/UDP 10.0.0.2:5062;branch=z9hG4bKcaller-invite"],
      ["Max-Forwards", "70"],
      ["From", '"Alice" <sip:14155550100@10.0.0.2>;tag=caller-tag'],
      ["To", "<sip:14155550123@10.0.0.1>"],
      ["Call-ID", "caller-call@10.0.0.2"],
      ["CSeq", "1 INVITE"],
      ["Contact", "<sip:14155550100@10.0.0.2:5062>"],
      ...(sdp ? ([["Content-Type", "application/sdp"]] as Array<[string, string]>) : []),
    ],
    body: sdp ? text(sdp) : new Uint8Array(0),
  };
}

type CallerRequest = { toTag?: string | null; seq?: number; body?: string; contentType?: string; extra?: Array<[string, string]> };

/** A request from the caller on its INVITE's transaction (CANCEL) or dialog (ACK, BYE...). */
export function fromCaller(method: string, options: CallerRequest = {}): SipRequest {
  const invite = callerInvite();
  const inTransaction = method === "CANCEL";
  const to = options.toTag ? `<sip:14155550123@10.0.0.1>;tag=${options.toTag}` : "<sip:14155550123@10.0.0.1>";
  const seq = options.seq ?? 1;
  return {
    kind: "request",
    method,
    uri: invite.uri,
    version: "SIP/2.0",
    headers: [
      ["Via", `SIP/2.0/UDP 10.0.0.2:5062;branch=${inTransaction ? "z9hG4bKcaller-invite" : `z9hG4bKcaller-${method}-${seq}`}`],
      ["Max-Forwards", "70"],
      ["From", header(invite, "From")!],
      ["To", to],
      ["Call-ID", header(invite, "Call-ID")!],
      ["CSeq", `${seq} ${method}`],
      ...(options.extra ?? []),
      ...(options.body ? ([["Content-Type", options.contentType ?? "application/sdp"]] as Array<[string, string]>) : []),
    ],
    body: options.body ? text(options.body) : new Uint8Array(0),
  };
}

/** The callee's answer to a request the node sent it, with its tag, Contact and an SDP body if given. */
export function calleeReply(request: SipRequest, status: number, sdp?: string, tag = "callee-tag"): SipResponse {
  const response = responseTo(request, status, reasonPhrase(status), status === 100 ? undefined : tag);
  if (status >= 180 && status < 300) response.headers.push(["Contact", `<sip:bob@${CALLEE.address}:${CALLEE.port}>`]);
  if (sdp) {
    response.headers.push(["Content-Type", "application/sdp"]);
    response.body = text(sdp);
  }
  return response;
}

/** A request from the callee inside the B leg's dialog (to our tag, as the From tag of our INVITE). */
export function fromCallee(inviteToCallee: SipRequest, method: string, seq = 1): SipRequest {
  return {
    kind: "request",
    method,
    uri: `sip:${NODE.address}:${NODE.port}`,
    version: "SIP/2.0",
    headers: [
      ["Via", `SIP/2.0/UDP ${CALLEE.address}:${CALLEE.port};branch=z9hG4bKcallee-${method}-${seq}`],
      ["Max-Forwards", "70"],
      ["From", `${header(inviteToCallee, "To")};tag=callee-tag`],
      ["To", header(inviteToCallee, "From")!],
      ["Call-ID", header(inviteToCallee, "Call-ID")!],
      ["CSeq", `${seq} ${method}`],
    ],
    body: new Uint8Array(0),
  };
}

export const tagOf = (message: SipMessage, name: "From" | "To") => parseNameAddr(header(message, name)!).tag;
export const bodyOf = (message: SipMessage) => new TextDecoder().decode(message.body);
