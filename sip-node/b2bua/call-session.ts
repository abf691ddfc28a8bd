// One call through the B2BUA, as the B2BUA sees it: the caller's INVITE starts it, the
// messages of its two dialogs are handed to it, and the Worker's commands (hang up, transfer,
// live stats, credit grants) reach it here. The call itself lives in Call and its parts: CallSetup
// (the INVITE pipeline), CallDialog (in-dialog requests), CallTransfer, CallReport and CallCredit.
import type { AdmissionTicket } from "../../schema/node-api.ts";
import type { CallReporter } from "../control/call-reporter.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaEngine } from "../media/engine.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage, SipRequest } from "../sip/message.ts";
import type { ServerTransaction, TransactionLayer } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { Call, type DialerClaim } from "./call.ts";

/** What a call needs of the node: the B2BUA in production, an in-memory stand-in in tests. */
export type SessionHost = {
  layer: Pick<TransactionLayer, "timers" | "sendRequest" | "sendStateless">;
  worker: Pick<WorkerClient, "admit">;
  /** Takes the call's events, numbered and batched to the Worker's call ledger. */
  reporter: Pick<CallReporter, "report">;
  /** This run of the node (a new one at every start), sent with each admission. */
  bootId: string;
  /** The account whose whitelist range holds a source address (the node's copy of the whitelist). */
  accountOf(address: string): string | undefined;
  /** Asks for a report to the call ledger by `atMs` (a call's covered talk time runs out soon after). */
  renewCredit(atMs: number): void;
  /** Work a call still does after its end (reporting, uploads): a draining node waits for it. */
  track(work: Promise<unknown>): void;
  /** openWebRtcLeg: a web dialer call's media (absent in hosts that carry no dialer calls). */
  media: Pick<MediaEngine, "open" | "watch" | "close" | "upload" | "openSipLog"> & Partial<Pick<MediaEngine, "openWebRtcLeg">>;
  nodeId: string;
  noAnswerMs: number;
  /** Our address for Via and Contact. */
  local: { address: string; port: number };
  resolve(host: string): Promise<string>;
  register(callId: string, localTag: string, session: CallSession, leg: Leg): void;
  /** A dialog of this call that ended while the call goes on (the callee replaced by a transfer). */
  unregisterDialog(callId: string, localTag: string): void;
  /** The caller never ACKed our 2xx: it counts against its source's call budget (absent: ignored). */
  unacknowledged?(caller: Endpoint): void;
  unregister(session: CallSession): void;
  log(message: string): void;
};

export type Leg = "a" | "b";

export class CallSession {
  private readonly call: Call;

  /** `dialer`: a web dialer's call, admitted by the token its INVITE carried (see DialerClaim). */
  constructor(host: SessionHost, invite: SipRequest, inviteTx: ServerTransaction, caller: Endpoint, dialer: DialerClaim | null = null) {
    this.call = new Call(this, host, invite, inviteTx, caller, dialer);
  }

  /** The Worker's admission of the call; null until admitted (and for a refused call). */
  get ticket(): AdmissionTicket | null {
    return this.call.ticket;
  }

  /** Whether `peer` is this call's caller (same address, port and transport). */
  isCaller(peer: Endpoint): boolean {
    const caller = this.call.caller;
    return caller.protocol === peer.protocol && caller.port === peer.port && caller.address === peer.address;
  }

  /** Whether `invite` is the caller's INVITE that started this call (or a retransmission of it: the same Via). */
  startedBy(invite: SipMessage): boolean {
    return header(invite, "Via") === header(this.call.invite, "Via");
  }

  /** A message of one of the call's Call-IDs on the wire, for its SIP log (see TransactionUser.onWire). */
  onWire(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void {
    this.call.sipLog.record(direction, message, bytes, peer);
  }

  /** Answers 100, asks the Worker to admit the call, then dials the destination. */
  start(): Promise<void> {
    return this.call.setup.start();
  }

  /** An ACK for a 2xx on one leg (the caller's ACK of our 200 ends its retransmission). */
  onAck(leg: Leg, ack: SipRequest): void {
    this.call.dialog.onAck(leg, ack);
  }

  /** The callee's 2xx came again after its INVITE transaction ended: our ACK was lost. */
  onRetransmitted2xx(): void {
    this.call.dialog.onRetransmitted2xx();
  }

  /** A request inside the dialog of one leg: BYE ends the call; others pass to the other leg. */
  onInDialogRequest(request: SipRequest, tx: ServerTransaction, leg: Leg, from: Endpoint): void {
    this.call.dialog.onInDialogRequest(request, tx, leg, from);
  }

  /** A transfer ordered through the Worker, for an answered call (see CallTransfer). */
  transfer(target: string, mode: "platform" | "refer"): { status: "in_progress" } {
    return this.call.transfers.start(target, mode);
  }

  /** Ends the call from the platform's side (a hang-up command, a limit). */
  hangUp(reason: string): void {
    this.call.hangUp(reason);
  }

  /** The call ledger's grant: talk seconds the credit covers now (only a larger one counts). */
  grant(seconds: number): void {
    this.call.credit.grant(seconds);
  }

  /** Live media of the call for the inspector. */
  mediaStats() {
    return this.call.relay?.stats() ?? null;
  }

  /** The call's ladder so far, for the inspector. */
  ladder() {
    return this.call.report.ladderSoFar();
  }
}
