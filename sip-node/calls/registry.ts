// Every call the node carries, bridged by the B2BUA or placed by the node itself (a test,
// verification or voice-agent call), and the dialogs they hold: the one place a call is found.
// By the Worker's call id for its commands (hang up, stats, ladder, credit grants, the ledger's
// ends); by SIP Call-ID for the call's SIP log; by Call-ID and our tag for the requests, ACKs
// and 2xx retransmissions of its dialogs. An ended call's dialogs and Call-IDs stay a little
// longer, so that late BYEs and retransmissions still find them.
import type { AdmissionTicket, CallReportAnswer, SipLogMessage } from "../../schema/node-api.ts";
import type { LiveCall } from "../control/call-reporter.ts";
import type { MediaRelay } from "../media/relay.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage, SipRequest } from "../sip/message.ts";
import { parseNameAddr } from "../sip/parser.ts";
import type { ServerTransaction } from "../sip/transactions.ts";
import type { Endpoint } from "../sip/transport.ts";
import { SIP_LOG_MAX_LINGER_MS } from "./call-sip-log.ts";
import { PendingWork } from "./call-timers.ts";

/** What the node asks of any call it carries. */
export type NodeCall = {
  /** The Worker's admission; null until admitted. */
  readonly ticket: AdmissionTicket | null;
  /** Whether the call ledger knows the call (a verification call it does not): named live in heartbeats. */
  readonly onLedger: boolean;
  hangUp(reason: string): void;
  /** The ledger's grant: talk seconds the credit covers now. */
  grant(seconds: number): void;
  mediaStats(): ReturnType<MediaRelay["stats"]> | null;
  ladder(): SipLogMessage[];
  /** A message with one of the call's Call-IDs on the wire, for its SIP log; `bytes` as they were, or null. */
  onWire(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void;
  /** Whether a request received outside any dialog with one of the call's Call-IDs is the call's (its INVITE again, its CANCEL). */
  claims(request: SipRequest): boolean;
};

/** One dialog of a call: what comes inside it. */
export type DialogHandler = {
  onRequest(request: SipRequest, tx: ServerTransaction, from: Endpoint): void;
  /** The ACK of a 2xx of ours. */
  onAck(ack: SipRequest): void;
  /** A 2xx for our INVITE came again after its transaction ended: our ACK was lost. */
  onRetransmitted2xx(): void;
};

const key = (callId: string | null, localTag: string) => `${callId}|${localTag}`;

export class CallRegistry {
  private readonly calls = new Set<NodeCall>();
  private readonly dialogs = new Map<string, { call: NodeCall; dialog: DialogHandler }>();
  private readonly byCallId = new Map<string, NodeCall>();
  private readonly callIds = new Map<NodeCall, string[]>();
  private readonly work = new PendingWork();
  private readonly log: (message: string) => void;

  constructor(log: (message: string) => void = console.error) {
    this.log = log;
  }

  add(call: NodeCall): void {
    this.calls.add(call);
  }

  /** A dialog of `call`, ours under `localTag`; its Call-ID's messages go to the call's SIP log. */
  addDialog(call: NodeCall, callId: string, localTag: string, dialog: DialogHandler): void {
    this.dialogs.set(key(callId, localTag), { call, dialog });
    this.byCallId.set(callId, call);
    this.callIds.set(call, [...(this.callIds.get(call) ?? []), callId]);
  }

  /** A dialog that ended while its call goes on (a callee replaced by a transfer). */
  removeDialog(callId: string, localTag: string): void {
    this.dialogs.delete(key(callId, localTag));
  }

  /** The call is over: it is no longer counted; its dialogs and Call-IDs are kept SIP_LOG_MAX_LINGER_MS more. */
  remove(call: NodeCall): void {
    if (!this.calls.delete(call)) return;
    setTimeout(() => {
      for (const [k, entry] of this.dialogs) if (entry.call === call) this.dialogs.delete(k);
      for (const callId of this.callIds.get(call) ?? []) if (this.byCallId.get(callId) === call) this.byCallId.delete(callId);
      this.callIds.delete(call);
    }, SIP_LOG_MAX_LINGER_MS).unref();
  }

  /** The dialog we hold as `localTag` in Call-ID `callId`. */
  dialog(callId: string | null, localTag: string | null): DialogHandler | undefined {
    return localTag === null ? undefined : this.dialogs.get(key(callId, localTag))?.dialog;
  }

  /**
   * A message on the wire, to the SIP log of the call whose Call-ID it carries; a request received
   * outside a dialog only when that call claims it. A failure there never stops the message.
   */
  trace(direction: "in" | "out", message: SipMessage, bytes: Uint8Array | null, peer: Endpoint): void {
    const callId = header(message, "Call-ID");
    const call = callId === null ? undefined : this.byCallId.get(callId);
    if (!call) return;
    const outsideDialog = direction === "in" && message.kind === "request" && !parseNameAddr(header(message, "To") ?? "").tag;
    if (outsideDialog && !call.claims(message)) return;
    try {
      call.onWire(direction, message, bytes, peer);
    } catch (err) {
      this.log(`sip log of ${callId}: ${String(err)}`);
    }
  }

  /** Calls up now (from their start to their end). */
  get active(): number {
    return this.calls.size;
  }

  /** The calls up now of a kind. */
  all<T extends NodeCall>(kind: abstract new (...args: never[]) => T): T[] {
    return [...this.calls].filter((call): call is T => call instanceof kind);
  }

  /** Every admitted call the ledger knows (the heartbeat's `live`). */
  live(): LiveCall[] {
    const live: LiveCall[] = [];
    for (const { ticket, onLedger } of this.calls)
      if (ticket && onLedger) live.push({ call_id: ticket.call_id, customer_id: ticket.customer_id });
    return live;
  }

  /** The call the Worker knows as `callId`. */
  byId(callId: string): NodeCall | undefined {
    for (const call of this.calls) if (call.ticket?.call_id === callId) return call;
    return undefined;
  }

  /** Hangs up the call the Worker knows as `callId`; false when this node does not carry it. */
  hangUp(callId: string, reason = "hangup_requested"): boolean {
    const call = this.byId(callId);
    call?.hangUp(reason);
    return call !== undefined;
  }

  /** Ends every call up now from the platform's side. */
  hangUpAll(reason: string): void {
    for (const call of [...this.calls]) call.hangUp(reason);
  }

  /** The call ledger's answer to a report: grants extend calls' talk time, ended calls are hung up. */
  applyReportAnswer(answer: CallReportAnswer): void {
    if (answer.grants.length === 0 && answer.ended.length === 0) return;
    const byId = new Map<string, NodeCall>();
    for (const call of this.calls) if (call.ticket) byId.set(call.ticket.call_id, call);
    for (const { call_id, granted_seconds } of answer.grants) byId.get(call_id)?.grant(granted_seconds);
    for (const { call_id, reason } of answer.ended) byId.get(call_id)?.hangUp(reason);
  }

  /** The live media of a call, for the inspector; null when this node does not carry it. */
  mediaStats(callId: string) {
    return this.byId(callId)?.mediaStats() ?? null;
  }

  /** The messages of a call recorded so far, for the inspector; null when this node does not carry it. */
  ladder(callId: string): SipLogMessage[] | null {
    return this.byId(callId)?.ladder() ?? null;
  }

  /** Work a call still does after its end (reports, progress, uploads): a draining node waits for it. */
  track(work: Promise<unknown>): void {
    this.work.track(work);
  }

  /** Resolves when that work is done, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void> {
    return this.work.settled(timeoutMs);
  }
}
