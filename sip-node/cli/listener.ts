// The hosted-number listener (CLI checks, issue 31): a SIP listener of the node's own, on its own
// port (CLI_LISTEN_PORT), apart from the trunk's, so the trunk's stranger rule stays whole. Any
// route may deliver a check's call here, so anyone is answered, within bounds: new INVITEs per
// second per source address (as the B2BUA bounds them, SourceThrottle), calls held at once, and
// the transaction table. It is its own transaction user over its own TransactionLayer: a new
// INVITE becomes a CliCall (the Worker says whether the number is one the platform holds);
// requests in a call's dialog go to it, CANCEL to the INVITE it cancels; OPTIONS is answered 200;
// anything else is 481 (BYE, or a To tag naming no dialog of ours) or 405.
import { answerCancel } from "../b2bua/incoming-cancel.ts";
import { SourceThrottle } from "../b2bua/source-throttle.ts";
import { PendingWork } from "../calls/call-timers.ts";
import { newTag } from "../calls/dialog.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import { reasonPhrase } from "../sip/causes.ts";
import { header, setHeader } from "../sip/headers.ts";
import type { SipMessage, SipRequest } from "../sip/message.ts";
import { parseNameAddr } from "../sip/parser.ts";
import {
  RFC_TIMERS,
  responseTo,
  TransactionLayer,
  type ServerTransaction,
  type TimerValues,
  type TransactionUser,
} from "../sip/transactions.ts";
import type { Endpoint, Transport } from "../sip/transport.ts";
import { ALLOW, CliCall, type CliHost } from "./cli-call.ts";

/** New calls one source address may start a second; beyond it, 503 with Retry-After (a route delivering checks sends a few a minute). */
export const CLI_CALLS_PER_SECOND_PER_SOURCE = 10;
/** Calls held at once (asking the Worker, or playing their tone); beyond it, 503. */
export const MAX_CLI_CALLS = 200;
/** Server and client transactions the listener holds at most (a flood is answered 503 past it). */
const TRANSACTION_LIMITS = { servers: 5_000, clients: 1_000 };

export type CliListenerOptions = {
  /** UDP and TCP on the listener's port (the node binds them). */
  transport: Transport;
  worker: Pick<WorkerClient, "cliArrival" | "cliArrivalEnd">;
  media: Pick<MediaEngine, "open" | "close">;
  nodeId: string;
  publicAddress: string;
  timers?: TimerValues;
  log(message: string): void;
};

const toTagOf = (message: SipMessage) => parseNameAddr(header(message, "To") ?? "").tag;

export class CliListener implements TransactionUser {
  readonly layer: TransactionLayer;
  private readonly options: CliListenerOptions;
  private readonly host: CliHost;
  private readonly throttle = new SourceThrottle(CLI_CALLS_PER_SECOND_PER_SOURCE);
  /** The calls held now, by Call-ID. */
  private readonly calls = new Map<string, CliCall>();
  private taking = true;
  private readonly pending = new PendingWork();

  constructor(options: CliListenerOptions) {
    this.options = options;
    this.layer = new TransactionLayer(options.transport, this, options.timers ?? RFC_TIMERS, TRANSACTION_LIMITS);
    this.layer.onInternalError = (err, from) =>
      options.log(`cli listener: dropped a message from ${from.address}:${from.port}: ${String(err)}`);
    this.host = {
      layer: this.layer,
      worker: options.worker,
      media: options.media,
      nodeId: options.nodeId,
      local: { address: options.publicAddress, port: options.transport.local.port },
      log: options.log,
      ended: (call) => {
        if (this.calls.get(call.callId) === call) this.calls.delete(call.callId);
      },
      unacknowledged: (source) => this.throttle.unacknowledged(source.address),
      track: (work) => this.pending.track(work),
    };
  }

  /** The port the listener is on. */
  get port(): number {
    return this.options.transport.local.port;
  }

  /** Calls held now. */
  get active(): number {
    return this.calls.size;
  }

  receive(message: SipMessage, from: Endpoint): void {
    if (message.kind === "response") {
      // The answer to our BYE (its client transaction); nothing else of ours asks anything.
      this.layer.matchResponse(message);
      return;
    }
    const toTag = toTagOf(message);
    const existing = this.calls.get(header(message, "Call-ID") ?? "");
    const call = existing?.inDialog(toTag) ? existing : undefined;
    if (message.method === "ACK") {
      if (!this.layer.matchAck(message)) call?.acked(message);
      return;
    }
    const tx = this.layer.matchRequest(message, from);
    if (!tx) return;
    if (message.method === "CANCEL") {
      return answerCancel(message, tx, this.layer, (invite) => [...this.calls.values()].find((c) => c.tx === invite));
    }
    if (call) return call.onRequest(message, tx);
    if (toTag || message.method === "BYE") return tx.respond(this.final(message, 481));
    if (message.method === "INVITE") return this.onInvite(message, tx, from, existing);
    if (message.method === "OPTIONS") return tx.respond(this.allowing(message, 200));
    tx.respond(this.allowing(message, 405));
  }

  /** A new INVITE: a call, unless the listener stops, the source sends too many, or too many are held. */
  private onInvite(request: SipRequest, tx: ServerTransaction, from: Endpoint, sameCallId: CliCall | undefined): void {
    if (sameCallId) {
      // Our 200's INVITE again after its transaction ended (the 200 goes again on its own), or another with a Call-ID in use.
      if (header(sameCallId.invite, "Via") === header(request, "Via")) return tx.terminate();
      return tx.respond(this.final(request, 482));
    }
    if (!this.taking) return this.refuseOverload(request, tx);
    const verdict = this.throttle.take(from.address);
    if (verdict === "silent") return tx.terminate();
    if (verdict === "busy" || this.calls.size >= MAX_CLI_CALLS) return this.refuseOverload(request, tx);
    const call = new CliCall(this.host, request, tx, from);
    this.calls.set(call.callId, call);
    void call.start().catch((err: unknown) => {
      this.options.log(`cli arrival ${call.callId}: ${String(err)}`);
      call.hangUp(true);
    });
  }

  /** Our INVITE answer was never acknowledged (Timer H): a second of the source's budget spent. */
  onUnacknowledged(_invite: SipRequest, from: Endpoint): void {
    this.throttle.unacknowledged(from.address);
  }

  /** An unreadable message gets no answer: anyone may send here, and answers to garbage only reflect. */
  onBadMessage(): void {}

  /** A final answer outside any dialog, with a To tag of ours (RFC 3261 §8.2.6.2). */
  private final(request: SipRequest, status: number) {
    return responseTo(request, status, reasonPhrase(status), newTag());
  }

  private allowing(request: SipRequest, status: number) {
    const response = this.final(request, status);
    setHeader(response.headers, "Allow", ALLOW);
    if (status === 200) setHeader(response.headers, "Accept", "application/sdp");
    return response;
  }

  private refuseOverload(request: SipRequest, tx: ServerTransaction): void {
    const response = this.final(request, 503);
    response.headers.push(["Retry-After", "5"]);
    tx.respond(response);
  }

  /** From now on new calls get 503 (the node drains); the calls held go on. */
  stopTakingCalls(): void {
    this.taking = false;
  }

  /** Ends every call held now (BYE once answered, 503 before), each end posted. */
  hangUpAll(): void {
    for (const call of [...this.calls.values()]) call.hangUp(true);
  }

  /** Ends the calls held, waits a little for their ends to be posted, then ends the transactions and closes the sockets. */
  async close(flushMs = 2_000): Promise<void> {
    this.taking = false;
    this.hangUpAll();
    await this.pending.settled(flushMs);
    await this.layer.close();
  }
}
