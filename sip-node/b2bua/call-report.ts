// The call as the Worker hears of it: the ladder of both legs' messages, the moments that time
// it (received, ringing, answered), and its events, posted in order to the Worker (answered,
// transfer, and ended with the ladder and the media summary).
import type { CallEvent, SipLogMessage } from "../../schema/node-api.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { MediaSummary } from "../media/relay.ts";
import { header } from "../sip/headers.ts";
import type { SipMessage } from "../sip/message.ts";
import { parseCSeq } from "../sip/parser.ts";
import { q850Of } from "./causes.ts";
import { callLog, type CallLog, type LogSink } from "./call-log.ts";

export type HangupBy = "caller" | "callee" | "platform";
type Address = { address: string; port: number };
type TransferReport = { target: string; mode: "platform" | "refer"; status: "accepted" | "completed" | "failed"; code: number };

const MAX_LADDER = 200;

export class CallReport {
  readonly receivedAt = Date.now();
  private readonly worker: Pick<WorkerClient, "event">;
  private readonly sink: LogSink;
  /** The Worker's id of the call, from its admission on: nothing is posted before. */
  private callId: string | null = null;
  private log: CallLog | null = null;
  private ringingAt: number | null = null;
  private answeredAt: number | null = null;
  private earlyMedia = false;
  private codec: string | null = null;
  private readonly ladder: SipLogMessage[] = [];
  private reports: Promise<void> = Promise.resolve();

  constructor(worker: Pick<WorkerClient, "event">, sink: LogSink) {
    this.worker = worker;
    this.sink = sink;
  }

  /** The Worker admitted the call as `callId`: events may be posted from now on. */
  admitted(callId: string): void {
    this.callId = callId;
    this.log = callLog(callId, this.sink);
  }

  /** One message of either leg, for the call's ladder (the first MAX_LADDER). */
  record(direction: "in" | "out", message: SipMessage, from: Address, to: Address): void {
    if (this.ladder.length >= MAX_LADDER) return;
    this.ladder.push(describeMessage(direction, message, from, to));
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
    void this.post({ type: "answered", at: new Date(this.answeredAt).toISOString(), codec });
  }

  transfer({ target, mode, status, code }: TransferReport): void {
    void this.post({ type: "transfer", at: new Date().toISOString(), target, mode, status, code });
  }

  /** The end of the call; `status` is the caller's final answer of a call that was never answered. */
  ended(endedAt: Date, hangupBy: HangupBy, reason: string | null, status: number, media: MediaSummary | null): Promise<void> {
    const finalStatus = this.answeredAt ? 200 : status;
    return this.post({
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

  /** Posts an event after the ones before it have been answered, so the Worker sees them in order. */
  private post(event: CallEvent): Promise<void> {
    const callId = this.callId;
    if (!callId) return Promise.resolve();
    this.reports = this.reports.then(() =>
      this.worker.event(callId, event).then(
        () => {},
        (err: unknown) => this.log?.warn(`event ${event.type}: ${String(err)}`),
      ),
    );
    return this.reports;
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
