// The call as the Worker hears of it: the ladder of both legs' messages, the moments that time
// it (received, ringing, answered), and its events, handed in order to the node's call reporter
// (answered, transfer, and ended with the ladder and the media summary), which batches them to
// the Worker's call ledger.
import type { CallEvent, SipLogMessage } from "../../schema/node-api.ts";
import type { CallReporter } from "../control/call-reporter.ts";
import type { MediaSummary } from "../media/relay.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage } from "../sip/message.ts";
import { parseCSeq } from "../sip/parser.ts";
import { q850Of } from "../sip/causes.ts";

export type HangupBy = "caller" | "callee" | "platform";
type Address = { address: string; port: number };
type TransferReport = { target: string; mode: "platform" | "refer"; status: "accepted" | "completed" | "failed"; code: number };

const MAX_LADDER = 200;

export class CallReport {
  readonly receivedAt = Date.now();
  private readonly reporter: Pick<CallReporter, "report">;
  /** The Worker's id of the call and its account, from its admission on: nothing is reported before. */
  private admission: { callId: string; customerId: string } | null = null;
  private ringingAt: number | null = null;
  private answeredAt: number | null = null;
  private earlyMedia = false;
  private codec: string | null = null;
  private readonly ladder: SipLogMessage[] = [];

  constructor(reporter: Pick<CallReporter, "report">) {
    this.reporter = reporter;
  }

  /** The Worker admitted the call as `callId` for `customerId`: events are reported from now on. */
  admitted(callId: string, customerId: string): void {
    this.admission = { callId, customerId };
  }

  /** One message of either leg, for the call's ladder (the first MAX_LADDER). */
  record(direction: "in" | "out", message: SipMessage, from: Address, to: Address): void {
    if (this.ladder.length >= MAX_LADDER) return;
    this.ladder.push(describeMessage(direction, message, from, to));
  }

  /** The messages recorded so far (the first MAX_LADDER), for the inspector while the call is up: a copy. */
  ladderSoFar(): SipLogMessage[] {
    return this.ladder.slice();
  }

  /** A provisional from the destination: the first one is when ringing began (pdd_ms). */
  ringing(withMedia: boolean): void {
    // The call is "ringing" from its admission; when ringing began travels in the end report.
    this.ringingAt ??= Date.now();
    if (withMedia) this.earlyMedia = true;
  }

  answered(codec: string | null): void {
    this.answeredAt = Date.now();
    this.codec = codec;
    this.post({ type: "answered", at: new Date(this.answeredAt).toISOString(), codec });
  }

  transfer({ target, mode, status, code }: TransferReport): void {
    this.post({ type: "transfer", at: new Date().toISOString(), target, mode, status, code });
  }

  /** The end of the call; `status` is the caller's final answer of a call that was never answered. */
  ended(endedAt: Date, hangupBy: HangupBy, reason: string | null, status: number, media: MediaSummary | null): void {
    const finalStatus = this.answeredAt ? 200 : status;
    this.post({
      type: "ended",
      at: endedAt.toISOString(),
      answered_at: this.answeredAt ? new Date(this.answeredAt).toISOString() : null,
      sip_code: finalStatus,
      hangup_by: hangupBy,
      q850_cause: q850Of(finalStatus),
      end_reason: reason,
      pdd_ms: this.ringingAt ? this.ringingAt - this.receivedAt : null,
      answer_delay_ms: this.answeredAt ? this.answeredAt - (this.ringingAt ?? this.receivedAt) : null,
      early_media: this.earlyMedia,
      codec: this.codec,
      ladder: this.ladder,
      ...(media && {
        media_ip: media.media_ip,
        mos: media.mos,
        jitter_ms: media.jitter_ms,
        packet_loss_pct: media.packet_loss_pct,
        qos: media.qos,
        dtmf: media.dtmf,
      }),
    });
  }

  /** Hands an event to the reporter, which numbers it after the call's earlier ones. */
  private post(event: CallEvent): void {
    if (!this.admission) return;
    this.reporter.report(this.admission.callId, this.admission.customerId, event);
  }
}

/** A message as the SIP log lists it: when, which way, between whom, what it is (no headers, no raw text). */
export function describeMessage(direction: "in" | "out", message: SipMessage, from: Address, to: Address, at = new Date()) {
  const cseq = header(message, "CSeq");
  return {
    time_stamp: at.toISOString(),
    direction,
    method: message.kind === "request" ? message.method : cseq ? parseCSeq(cseq).method : "",
    status: message.kind === "response" ? `${message.status} ${message.reason}` : null,
    fromip: `${from.address}:${from.port}`,
    toip: `${to.address}:${to.port}`,
    fromtag: tagOf(header(message, "From")),
    totag: tagOf(header(message, "To")),
    first_line: message.kind === "request" ? `${message.method} ${message.uri} SIP/2.0` : `SIP/2.0 ${message.status} ${message.reason}`,
  } satisfies SipLogMessage;
}

const tagOf = (value: string | null) => (value ? (/;\s*tag=([^;>\s]+)/i.exec(value)?.[1] ?? null) : null);
