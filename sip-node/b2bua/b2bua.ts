// The node's front: the requests outside any dialog it holds, as the call router hands them over.
// Strangers get no answer at all and leave no state (`admits`); a caller's CANCEL is answered in
// incoming-cancel.ts; a new INVITE from a whitelisted peer, or from a browser with a dialer token,
// becomes a Call (unless the node drains or the source calls too often); OPTIONS pings are
// answered for whitelisted peers, with the proof codes of a range awaiting proof of control.
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { DIALER_TOKEN_HEADER, dialerTokenAccount } from "../../schema/dialer-token.ts";
import { callLog } from "../calls/call-log.ts";
import type { CallFront } from "../calls/call-router.ts";
import type { CallRegistry } from "../calls/registry.ts";
import type { CallReporter } from "../control/call-reporter.ts";
import type { WhitelistFilter } from "../control/whitelist.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import type { IdentityReader } from "../screening/identity-verifier.ts";
import { reasonPhrase } from "../sip/causes.ts";
import { header } from "../sip/headers.ts";
import type { SipParseError, SipRequest, SipResponse } from "../sip/message.ts";
import { parseNameAddr, SipMessageError } from "../sip/parser.ts";
import { responseTo, type ServerTransaction, type TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { Call, type CallHost, type DialerClaim } from "./call.ts";
import { answerCancel } from "./incoming-cancel.ts";
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
  /** Every call of the node: the B2BUA's are added there, and every dialog is found there. */
  calls: CallRegistry;
  nodeId: string;
  publicAddress: string;
  noAnswerSeconds: number;
  /** New calls a second one source address may start; beyond it, 503 with Retry-After. */
  callsPerSecondPerSource: number;
  /** Reads each INVITE's caller-ID attestation (STIR/SHAKEN) for its admission; absent: not read. */
  identity?: IdentityReader;
  log?: (message: string) => void;
};

export class B2bua implements CallFront {
  private layer!: TransactionLayer;
  private host!: CallHost;
  private readonly options: B2buaOptions;
  private readonly calls: CallRegistry;
  private readonly dns = new Map<string, Promise<string>>();
  private readonly throttle: SourceThrottle;
  /** New calls from web dialer browsers, per source address (an office behind one NAT address). */
  private readonly browserThrottle: SourceThrottle;
  /** Set while the node drains: new calls are refused with 503 and this Retry-After. */
  private drainRetryAfter: number | null = null;

  constructor(options: B2buaOptions) {
    this.options = options;
    this.calls = options.calls;
    this.throttle = new SourceThrottle(options.callsPerSecondPerSource);
    this.browserThrottle = new SourceThrottle(Math.min(options.callsPerSecondPerSource, BROWSER_CALLS_PER_SECOND_PER_SOURCE));
  }

  attach(layer: TransactionLayer): void {
    this.layer = layer;
    layer.transport.onDisconnect?.((peer) => this.callerGone(peer));
    // Nothing the node starts goes to a private, loopback or link-local address unless allowed.
    layer.destinationFilter = (to) => this.options.media.peers.allows(to.address);
    const { options } = this;
    this.host = {
      layer,
      worker: options.worker,
      reporter: options.reporter,
      renewCredit: (atMs) => options.reporter.renewBy?.(atMs),
      bootId: options.bootId,
      accountOf: (address) => options.whitelist.accountOf(address),
      media: options.media,
      nodeId: options.nodeId,
      noAnswerMs: options.noAnswerSeconds * 1000,
      local: { address: options.publicAddress, port: layer.transport.local.port },
      resolve: (host) => this.resolve(host),
      calls: this.calls,
      unacknowledged: (caller) => this.throttle.unacknowledged(caller.address),
      ...(options.identity ? { identity: options.identity } : {}),
      log: (message) => this.log(message),
    };
  }

  /**
   * A request outside any dialog the node holds, in its new server transaction (the call router
   * hands it over): the caller's CANCEL, a browser's request, a new INVITE, OPTIONS.
   */
  onRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint, bytes: Uint8Array | null): void {
    if (request.method === "CANCEL") return answerCancel(request, tx, this.layer, (invite) => this.callAnswering(invite));
    const toTag = parseNameAddr(header(request, "To") ?? "").tag;
    if (isWebSocket(from)) return this.onBrowserRequest(request, tx, from, bytes, toTag);
    // Only a whitelisted source is here: `admits` let nobody else through.
    if (request.method === "INVITE" && !toTag) return this.onInvite(request, tx, from, bytes);
    if (request.method === "OPTIONS") return tx.respond(this.optionsAnswer(request, from));
    const status = toTag ? 481 : 405;
    tx.respond(responseTo(request, status, reasonPhrase(status)));
  }

  /**
   * Outside the dialogs we hold, a request is handled only from a whitelisted source, from a browser
   * on the web dialer's WebSocket (a real connection, no spoofed source: its token decides), or, for
   * an OPTIONS, from a range awaiting proof of control (answered with the proof, and nothing else is).
   */
  admits(request: SipRequest, from: Endpoint): boolean {
    const { whitelist } = this.options;
    if (whitelist.contains(from.address) || isWebSocket(from)) return true;
    return request.method === "OPTIONS" && whitelist.proofCodesFor(from.address).length > 0;
  }

  /** A stream connection is accepted only from the whitelist (the transport adds peers we sent to). */
  admitsConnection(address: string): boolean {
    return this.options.whitelist.contains(address);
  }

  /** Our final response to an INVITE was never ACKed: it counts against the source's call budget. */
  onUnacknowledged(_invite: SipRequest, from: Endpoint): void {
    this.throttle.unacknowledged(from.address);
  }

  /** The B2BUA call answering the caller's INVITE transaction `invite`. */
  private callAnswering(invite: ServerTransaction): Call | undefined {
    return this.calls.all(Call).find((call) => call.answers(invite));
  }

  /** A new INVITE from a whitelisted peer: a call, unless the node drains or the source sends too many. */
  private onInvite(request: SipRequest, tx: ServerTransaction, from: Endpoint, bytes: Uint8Array | null): void {
    if (this.drainRetryAfter !== null) return this.refuseOverload(request, tx, this.drainRetryAfter);
    const verdict = this.throttle.take(from.address);
    if (verdict === "silent") return tx.terminate();
    if (verdict === "busy") return this.refuseOverload(request, tx);
    this.startCall(request, tx, from, bytes);
  }

  /** From now on every new call is refused with 503 and Retry-After (the peer's other routes take it). */
  stopTakingCalls(retryAfterSeconds: number): void {
    this.drainRetryAfter = Math.max(1, Math.round(retryAfterSeconds));
  }

  /** Starts a transfer of a call this node bridges (see CallTransfer). */
  transfer(callId: string, target: string, mode: "platform" | "refer") {
    const call = this.calls.byId(callId);
    if (!(call instanceof Call)) throw new Error("this node does not carry that call");
    return call.transfer(target, mode);
  }

  /** A browser's WebSocket closed: its calls are ended now rather than when their media times out. */
  private callerGone(peer: Endpoint): void {
    for (const call of this.calls.all(Call)) if (call.isCaller(peer)) call.hangUp("websocket_closed");
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
    this.startCall(request, tx, from, bytes, { customerId, token });
  }

  /** 200 to an OPTIONS; from a range awaiting proof of control it carries the codes (X-Call-Shield-Proof). */
  private optionsAnswer(request: SipRequest, from: Endpoint) {
    const response = responseTo(request, 200, reasonPhrase(200), "options");
    const codes = this.options.whitelist.proofCodesFor(from.address);
    if (codes.length > 0) response.headers.push(["X-Call-Shield-Proof", codes.join(", ")]);
    return response;
  }

  private startCall(request: SipRequest, tx: ServerTransaction, from: Endpoint, bytes: Uint8Array | null, dialer?: DialerClaim): void {
    const call = new Call(this.host, request, tx, from, dialer);
    this.calls.add(call);
    call.onWire("in", request, bytes, from);
    void call.start().catch((err: unknown) => callLog(header(request, "Call-ID") ?? "", (line) => this.log(line)).error(String(err)));
  }

  /** 503 with Retry-After (RFC 3261 §21.5.4): the peer's other routes can take the call. */
  private refuseOverload(request: SipRequest, tx: ServerTransaction, retryAfterSeconds = 1): void {
    const response = responseTo(request, 503, reasonPhrase(503), randomBytes(8).toString("hex"));
    response.headers.push(["Retry-After", String(retryAfterSeconds)]);
    tx.respond(response);
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
