// The transaction user of the node: new INVITEs become CallSessions (after the whitelist
// filter: strangers get no answer at all), in-dialog requests find their session by
// Call-ID and our tag, OPTIONS pings are answered for whitelisted peers. Every message on the
// wire with one of a call's Call-IDs goes to that call's SIP log.
import { PendingWork } from "./call-timers.ts";
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { CallReportAnswer } from "../../schema/node-api.ts";
import type { CallReporter, LiveCall } from "../control/call-reporter.ts";
import type { WhitelistFilter } from "../control/whitelist.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage, SipParseError, SipRequest, SipResponse } from "../sip/message.ts";
import { parseNameAddr, SipMessageError } from "../sip/parser.ts";
import { responseTo, type ServerTransaction, type TransactionLayer, type TransactionUser } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { callLog } from "./call-log.ts";
import type { DialerClaim } from "./call.ts";
import { DIALER_TOKEN_HEADER, dialerTokenAccount } from "../../schema/dialer-token.ts";
import { CallSession, type Leg, type SessionHost } from "./call-session.ts";
import { SIP_LOG_MAX_LINGER_MS } from "./call-sip-log.ts";
import { reasonPhrase } from "./causes.ts";
import { SourceThrottle } from "./source-throttle.ts";

/** New calls one address may place through the web dialer per second; beyond it, 503 with Retry-After. */
export const BROWSER_CALLS_PER_SECOND_PER_SOURCE = 5;

/** A message from a browser on the web dialer's WebSocket listener. */
const isWebSocket = (from: Endpoint) => from.protocol === "ws" || from.protocol === "wss";

export type B2buaOptions = {
  worker: WorkerClient;
  /** Takes the calls' events; renewBy (optional for tests) asks for an early heartbeat. */
  reporter: Pick<CallReporter, "report"> & Partial<Pick<CallReporter, "renewBy">>;
  /** This run of the node, sent with each admission. */
  bootId: string;
  media: MediaEngine;
  whitelist: WhitelistFilter;
  nodeId: string;
  publicAddress: string;
  noAnswerSeconds: number;
  /** New calls a second one source address may start; beyond it, 503 with Retry-After. */
  callsPerSecondPerSource: number;
  log?: (message: string) => void;
};

/**
 * A dialog the node originated outside the B2BUA (a test call, sip-node/origination/): the
 * requests the far end sends in it, 2xx retransmissions and every message of its Call-ID on the
 * wire go to its owner.
 */
export type OriginatedDialog = {
  /** Our tag in the dialog; null before the INVITE leaves. */
  readonly localTag: string | null;
  onInDialogRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint): void;
  onRetransmitted2xx(): void;
  onWire(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void;
};

export class B2bua implements TransactionUser {
  private layer!: TransactionLayer;
  private readonly options: B2buaOptions;
  private readonly dialogs = new Map<string, { session: CallSession; leg: Leg }>();
  /** Each Call-ID of a call (the caller's, ours toward destinations), for its SIP log; and the other way. */
  private readonly traced = new Map<string, CallSession>();
  private readonly callIds = new Map<CallSession, string[]>();
  /** An INVITE just received that no call claims yet: the call it starts logs it first. */
  private unclaimed: { message: SipMessage; bytes: Uint8Array | null } | null = null;
  private readonly sessions = new Set<CallSession>();
  private readonly dns = new Map<string, Promise<string>>();
  private readonly throttle: SourceThrottle;
  /** New calls from web dialer browsers, per source address (an office behind one NAT address). */
  private readonly browserThrottle: SourceThrottle;
  /** Set while the node drains: new calls are refused with 503 and this Retry-After. */
  private drainRetryAfter: number | null = null;
  /** What ended calls still do (reports, uploads), for a drain to wait on. */
  private readonly work = new PendingWork();
  /** Dialogs the node originated itself (test calls), by Call-ID. */
  private readonly originated = new Map<string, OriginatedDialog>();

  constructor(options: B2buaOptions) {
    this.options = options;
    this.throttle = new SourceThrottle(options.callsPerSecondPerSource);
    this.browserThrottle = new SourceThrottle(Math.min(options.callsPerSecondPerSource, BROWSER_CALLS_PER_SECOND_PER_SOURCE));
  }

  attach(layer: TransactionLayer): void {
    this.layer = layer;
    layer.transport.onDisconnect?.((peer) => this.callerGone(peer));
    // Nothing the node starts goes to a private, loopback or link-local address unless allowed.
    layer.destinationFilter = (to) => this.options.media.peers.allows(to.address);
    // On the callee's leg we are the UAC: our tag is the From tag of its responses.
    layer.onStray2xx = (response) => {
      const fromTag = parseNameAddr(header(response, "From") ?? "").tag;
      const found = fromTag ? this.dialogs.get(`${header(response, "Call-ID")}|${fromTag}`) : undefined;
      if (found?.leg === "b") found.session.onRetransmitted2xx();
      const own = this.originatedFor(response, fromTag);
      own?.onRetransmitted2xx();
    };
  }

  /** Routes what comes in the dialog with Call-ID `callId` to `dialog` (see OriginatedDialog). */
  registerOriginated(callId: string, dialog: OriginatedDialog): void {
    this.originated.set(callId, dialog);
  }

  /** The dialog ended: its late messages (a BYE crossing ours, retransmissions) still reach it a little longer. */
  forgetOriginated(callId: string): void {
    const dialog = this.originated.get(callId);
    setTimeout(() => {
      if (this.originated.get(callId) === dialog) this.originated.delete(callId);
    }, SIP_LOG_MAX_LINGER_MS).unref();
  }

  /** The originated dialog a message belongs to: its Call-ID, and our tag where `tag` names one. */
  private originatedFor(message: SipMessage, tag: string | null): OriginatedDialog | undefined {
    const callId = header(message, "Call-ID");
    const dialog = callId === null ? undefined : this.originated.get(callId);
    return dialog && tag !== null && dialog.localTag === tag ? dialog : undefined;
  }

  get activeCalls(): number {
    return this.sessions.size;
  }

  /** Hangs up the call the Worker knows as `callId`; false when this node does not carry it. */
  hangUp(callId: string, reason = "hangup_requested"): boolean {
    const session = this.sessionOf(callId);
    session?.hangUp(reason);
    return session !== undefined;
  }

  /** Starts a transfer of a call this node carries (see CallSession.transfer). */
  transfer(callId: string, target: string, mode: "platform" | "refer") {
    const session = this.sessionOf(callId);
    if (!session) throw new Error("this node does not carry that call");
    return session.transfer(target, mode);
  }

  /** A browser's WebSocket closed: its calls are ended now rather than when their media times out. */
  private callerGone(peer: Endpoint): void {
    for (const session of [...this.sessions]) if (session.isCaller(peer)) session.hangUp("websocket_closed");
  }

  /** Every admitted call this node carries now, with its account (the heartbeat's `live`). */
  liveCalls(): LiveCall[] {
    const live: LiveCall[] = [];
    for (const { ticket } of this.sessions) if (ticket) live.push({ call_id: ticket.call_id, customer_id: ticket.customer_id });
    return live;
  }

  /** The call ledger's answer to a report: grants extend calls' talk time, ended calls are hung up. */
  applyReportAnswer(answer: CallReportAnswer): void {
    if (answer.grants.length === 0 && answer.ended.length === 0) return;
    const byCallId = new Map<string, CallSession>();
    for (const session of this.sessions) if (session.ticket) byCallId.set(session.ticket.call_id, session);
    for (const { call_id, granted_seconds } of answer.grants) byCallId.get(call_id)?.grant(granted_seconds);
    for (const { call_id, reason } of answer.ended) byCallId.get(call_id)?.hangUp(reason);
  }

  /** From now on every new call is refused with 503 and Retry-After (the peer's other routes take it). */
  stopTakingCalls(retryAfterSeconds: number): void {
    this.drainRetryAfter = Math.max(1, Math.round(retryAfterSeconds));
  }

  /** Ends every call up now from the platform's side. */
  hangUpAll(reason: string): void {
    for (const session of [...this.sessions]) session.hangUp(reason);
  }

  /** Resolves when what ended calls still do (their reports, uploads) is done, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void> {
    return this.work.settled(timeoutMs);
  }

  private sessionOf(callId: string): CallSession | undefined {
    for (const session of this.sessions) if (session.ticket?.call_id === callId) return session;
    return undefined;
  }

  /** The live media of a call this node carries, for the inspector; null when it is not here. */
  mediaStats(callId: string) {
    return this.sessionOf(callId)?.mediaStats() ?? null;
  }

  /** The messages of a call this node carries recorded so far, for the inspector; null when it is not here. */
  ladder(callId: string) {
    return this.sessionOf(callId)?.ladder() ?? null;
  }

  /** A message on the wire (before it is handled, or as it is sent): to its call's SIP log. */
  onWire(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void {
    const callId = header(message, "Call-ID");
    const own = callId === null ? undefined : this.originated.get(callId);
    // A new INVITE reusing an originated call's Call-ID is not that call's.
    if (own && !(direction === "in" && message.kind === "request" && !parseNameAddr(header(message, "To") ?? "").tag)) {
      return own.onWire(direction, message, bytes, peer);
    }
    const session = callId === null ? undefined : this.traced.get(callId);
    // An INVITE outside a dialog that is not a call's own INVITE again starts a call (even with a Call-ID used before).
    const starts =
      direction === "in" &&
      message.kind === "request" &&
      message.method === "INVITE" &&
      !session?.startedBy(message) &&
      !parseNameAddr(header(message, "To") ?? "").tag;
    if (starts) this.unclaimed = { message, bytes };
    else session?.onWire(direction, message, bytes, peer);
  }

  /**
   * Strangers hear nothing and leave nothing (no transaction, no trace): a request is handled only
   * from a whitelisted source or inside a dialog we hold (a destination's BYE, re-INVITE, NOTIFY).
   */
  admits(request: SipRequest, from: Endpoint): boolean {
    if (this.options.whitelist.contains(from.address)) return true;
    // A browser on the web dialer's WebSocket: a real connection (no spoofed source), answered; its token decides.
    if (isWebSocket(from)) return true;
    // An OPTIONS from a range awaiting proof of control is answered with the proof (and nothing else is).
    if (request.method === "OPTIONS" && this.options.whitelist.proofCodesFor(from.address).length > 0) return true;
    const toTag = parseNameAddr(header(request, "To") ?? "").tag;
    if (toTag !== null && this.originatedFor(request, toTag)) return true;
    return toTag !== null && this.dialogs.has(`${header(request, "Call-ID")}|${toTag}`);
  }

  /** A stream connection is accepted only from the whitelist (the transport adds peers we sent to). */
  admitsConnection(address: string): boolean {
    return this.options.whitelist.contains(address);
  }

  /** Our final response to an INVITE was never ACKed: it counts against the source's call budget. */
  onUnacknowledged(_invite: SipRequest, from: Endpoint): void {
    this.throttle.unacknowledged(from.address);
  }

  onRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint): void {
    const seen = this.unclaimed?.message === request ? this.unclaimed : null;
    this.unclaimed = null;
    const toTag = parseNameAddr(header(request, "To") ?? "").tag;
    if (toTag) {
      const found = this.dialogs.get(`${header(request, "Call-ID")}|${toTag}`);
      if (found) return found.session.onInDialogRequest(request, tx, found.leg, from);
      const own = this.originatedFor(request, toTag);
      if (own) return own.onInDialogRequest(request, tx, from);
    }
    if (isWebSocket(from)) return this.onBrowserRequest(request, tx, from, seen?.bytes ?? null, toTag);
    // Past the dialogs, only a whitelisted source is here: `admits` let nobody else through.
    if (request.method === "INVITE" && !toTag) {
      if (this.drainRetryAfter !== null) return this.refuseOverload(request, tx, this.drainRetryAfter);
      const verdict = this.throttle.take(from.address);
      if (verdict === "silent") return tx.terminate();
      if (verdict === "busy") return this.refuseOverload(request, tx);
      return this.startSession(request, tx, from, seen?.bytes ?? null);
    }
    if (request.method === "OPTIONS") return tx.respond(this.optionsAnswer(request, from));
    const status = toTag ? 481 : 405;
    tx.respond(responseTo(request, status, reasonPhrase(status)));
  }

  /**
   * A request from a web dialer's browser outside any dialog: only an INVITE carrying a dialer token
   * may start a call (admitted by the token, never the whitelist); anything else is refused.
   */
  private onBrowserRequest(
    request: SipRequest,
    tx: ServerTransaction,
    from: Endpoint,
    bytes: Uint8Array | null,
    toTag: string | null,
  ): void {
    if (request.method !== "INVITE" || toTag) {
      const status = toTag ? 481 : 403;
      return tx.respond(responseTo(request, status, reasonPhrase(status)));
    }
    const token = header(request, DIALER_TOKEN_HEADER)?.trim() ?? "";
    const customerId = dialerTokenAccount(token);
    if (!customerId) return tx.respond(responseTo(request, 403, "Dialer token required", randomBytes(8).toString("hex")));
    if (this.drainRetryAfter !== null) return this.refuseOverload(request, tx, this.drainRetryAfter);
    // A person places a call now and then: more from one address is someone guessing tokens, which costs the Worker a lookup each.
    const verdict = this.browserThrottle.take(from.address);
    if (verdict === "silent") return tx.terminate();
    if (verdict === "busy") return this.refuseOverload(request, tx);
    this.startSession(request, tx, from, bytes, { customerId, token });
  }

  /** 200 to an OPTIONS; from a range awaiting proof of control it carries the codes (X-Call-Shield-Proof). */
  private optionsAnswer(request: SipRequest, from: Endpoint) {
    const response = responseTo(request, 200, reasonPhrase(200), "options");
    const codes = this.options.whitelist.proofCodesFor(from.address);
    if (codes.length > 0) response.headers.push(["X-Call-Shield-Proof", codes.join(", ")]);
    return response;
  }

  private startSession(request: SipRequest, tx: ServerTransaction, from: Endpoint, bytes: Uint8Array | null, dialer?: DialerClaim): void {
    const session = new CallSession(this.host(), request, tx, from, dialer);
    this.sessions.add(session);
    session.onWire("in", request, bytes, from);
    void session.start().catch((err: unknown) => callLog(header(request, "Call-ID") ?? "", (line) => this.log(line)).error(String(err)));
  }

  /** 503 with Retry-After (RFC 3261 §21.5.4): the peer's other routes can take the call. */
  private refuseOverload(request: SipRequest, tx: ServerTransaction, retryAfterSeconds = 1): void {
    const response = responseTo(request, 503, reasonPhrase(503), randomBytes(8).toString("hex"));
    response.headers.push(["Retry-After", String(retryAfterSeconds)]);
    tx.respond(response);
  }

  onAck(ack: SipRequest): void {
    const toTag = parseNameAddr(header(ack, "To") ?? "").tag;
    const found = toTag ? this.dialogs.get(`${header(ack, "Call-ID")}|${toTag}`) : undefined;
    found?.session.onAck(found.leg, ack);
  }

  /**
   * A request that was framed but is invalid gets its error status (400, 505...) when it came
   * from a whitelisted peer and names enough of itself to be answered (RFC 3261 §8.2.1,
   * §21.4.1); anything else is dropped. Strangers never hear back either way.
   */
  onBadMessage(error: SipParseError, from: Endpoint): void {
    if (!(error instanceof SipMessageError) || !this.options.whitelist.contains(from.address)) return;
    const request = error.partial;
    if (request.kind !== "request" || request.method === "ACK") return;
    const response: SipResponse = {
      kind: "response",
      status: error.status,
      reason: reasonPhrase(error.status),
      version: "SIP/2.0",
      headers: [],
      body: new Uint8Array(0),
    };
    for (const [name, value] of request.headers) {
      if (name === "Via" || name === "From" || name === "To" || name === "Call-ID" || name === "CSeq") response.headers.push([name, value]);
    }
    if (!response.headers.some(([name]) => name === "Via")) return;
    response.headers.push(["Warning", `399 call-shield "${error.message.replace(/["\\]/g, "'").slice(0, 120)}"`]);
    this.layer.sendStateless(response, from);
  }

  private host(): SessionHost {
    return {
      layer: this.layer,
      worker: this.options.worker,
      reporter: this.options.reporter,
      renewCredit: (atMs) => this.options.reporter.renewBy?.(atMs),
      bootId: this.options.bootId,
      accountOf: (address) => this.options.whitelist.accountOf(address),
      track: (work) => this.work.track(work),
      media: this.options.media,
      nodeId: this.options.nodeId,
      noAnswerMs: this.options.noAnswerSeconds * 1000,
      local: { address: this.options.publicAddress, port: this.layer.transport.local.port },
      resolve: (host) => this.resolve(host),
      register: (callId, localTag, session, leg) => {
        this.dialogs.set(`${callId}|${localTag}`, { session, leg });
        this.traced.set(callId, session);
        this.callIds.set(session, [...(this.callIds.get(session) ?? []), callId]);
      },
      unregister: (session) => this.forget(session),
      unregisterDialog: (callId, localTag) => this.dialogs.delete(`${callId}|${localTag}`),
      unacknowledged: (caller) => this.throttle.unacknowledged(caller.address),
      log: (message) => this.log(message),
    };
  }

  private forget(session: CallSession): void {
    this.sessions.delete(session);
    // Keep the dialogs a little longer so late BYEs and retransmissions still find them (and the
    // call's SIP log, which closes within SIP_LOG_MAX_LINGER_MS of the end, still gets them).
    setTimeout(() => {
      for (const [key, value] of this.dialogs) if (value.session === session) this.dialogs.delete(key);
      for (const callId of this.callIds.get(session) ?? []) if (this.traced.get(callId) === session) this.traced.delete(callId);
      this.callIds.delete(session);
    }, SIP_LOG_MAX_LINGER_MS).unref();
  }

  private resolve(host: string): Promise<string> {
    if (isIP(host)) return Promise.resolve(host);
    let pending = this.dns.get(host);
    if (!pending) {
      pending = lookup(host).then((r) => r.address);
      pending.catch(() => this.dns.delete(host));
      this.dns.set(host, pending);
      setTimeout(() => this.dns.delete(host), 60_000).unref();
    }
    return pending;
  }

  private log(message: string): void {
    (this.options.log ?? console.error)(message);
  }
}
