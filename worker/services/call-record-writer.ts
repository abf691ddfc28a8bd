// Writes what the account ledgers send through the call-records queue into D1: a call's record
// when it is admitted or refused, then its events (ringing, answered, transfer, ended with the
// charge the ledger made and the ladder). Every write is idempotent and safe out of order, as a
// queue may deliver a message twice or late: a record is inserted once; an event never reopens an
// ended call; an end is written once, unless it is the real end replacing a node_lost one.
import { and, eq, notInArray, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { CallRecordMessage } from "../../durable-objects/call-ledger.ts";
import type { CallEvent, EndedEvent, TransferEvent } from "../../schema/node-api.ts";
import { callSipMessages, calls } from "../../schema/calls.ts";
import { d1Chunks, paramsPerRow, runBatch } from "../lib/db.ts";
import { q850Text } from "../lib/q850.ts";
import type { Services } from "./context.ts";

type CallRow = typeof calls.$inferSelect;
type EventMessage = Extract<CallRecordMessage, { type: "event" }>;

const ENDED = ["completed", "failed", "rejected"];

/** What became of one message: written, or to be tried again (its call's record is not in D1 yet). */
export type WriteOutcome = "written" | "retry";

/** Writes a batch of messages, records first (so the events of a new call find their row). */
export async function writeCallRecords(s: Services, messages: CallRecordMessage[]): Promise<WriteOutcome[]> {
  const records = messages.flatMap((m) => (m.type === "record" ? [m.record as typeof calls.$inferInsert] : []));
  for (const slice of d1Chunks(records, paramsPerRow(calls))) {
    await s.db.insert(calls).values(slice).onConflictDoNothing();
  }
  const outcomes: WriteOutcome[] = [];
  for (const message of messages) outcomes.push(message.type === "record" ? "written" : await writeEvent(s, message));
  return outcomes;
}

async function writeEvent(s: Services, message: EventMessage): Promise<WriteOutcome> {
  const { event } = message;
  const call = await s.db.select().from(calls).where(eq(calls.id, message.call_id)).get();
  if (!call) return "retry";
  if (event.type === "ended") await writeEnd(s, call, event, message);
  else if (event.type === "transfer") await writeTransfer(s, call, event);
  else await writeProgress(s, call, event);
  return "written";
}

/** Ringing and answered: a late report never reopens an ended call. */
async function writeProgress(s: Services, call: CallRow, event: Extract<CallEvent, { type: "ringing" | "answered" }>) {
  const patch: Partial<CallRow> =
    event.type === "ringing"
      ? {
          status: sql`CASE WHEN ${calls.status} = 'active' THEN 'active' ELSE 'ringing' END` as never,
          earlyMedia: event.early_media ?? call.earlyMedia,
        }
      : { status: "active", answeredAt: sql`coalesce(${calls.answeredAt}, ${event.at})` as never, codec: event.codec ?? call.codec };
  await s.db
    .update(calls)
    .set({ ...patch, updatedAt: event.at })
    .where(and(eq(calls.id, call.id), notInArray(calls.status, ENDED)));
}

/** A transfer's progress: accepted (REFER taken), then completed or failed; a late "accepted" never overwrites how it ended. */
async function writeTransfer(s: Services, call: CallRow, event: TransferEvent) {
  const settled = call.transferStatus === "completed" || call.transferStatus === "failed";
  if (settled && event.status === "accepted" && call.transferTarget === event.target) return;
  await s.db
    .update(calls)
    .set({
      transferTarget: event.target,
      transferMode: event.mode,
      transferStatus: event.status,
      transferCode: event.code,
      transferAt: event.at,
      updatedAt: event.at,
    })
    .where(eq(calls.id, call.id));
}

async function writeEnd(s: Services, call: CallRow, event: EndedEvent, message: EventMessage) {
  const answeredAt = event.answered_at ?? call.answeredAt;
  const patch: Partial<CallRow> = {
    status: answeredAt ? "completed" : "failed",
    answeredAt,
    endedAt: event.at,
    durationSec: Math.max(0, Math.round((Date.parse(event.at) - Date.parse(call.startedAt)) / 1000)),
    billsec: message.charge?.billsec ?? 0,
    chargedMicros: message.charge?.charged_micros ?? 0,
    sipCode: event.sip_code,
    hangupBy: event.hangup_by,
    q850Cause: event.q850_cause ?? null,
    q850Text: q850Text(event.q850_cause),
    // The real end that replaces the ledger's node_lost end says how the call ended, even with no reason (a plain hangup).
    endReason: message.supersede ? (event.end_reason ?? null) : (event.end_reason ?? call.endReason),
    pddMs: event.pdd_ms ?? call.pddMs,
    answerDelayMs: event.answer_delay_ms ?? call.answerDelayMs,
    earlyMedia: event.early_media ?? call.earlyMedia,
    codec: event.codec ?? call.codec,
    mediaIp: event.media_ip ?? call.mediaIp,
    // Nothing will be recorded for a call never answered, or relayed only: nothing to analyse.
    ...(call.analysisStatus === "pending" && (!answeredAt || call.processing === "relay_only")
      ? { transcriptStatus: "none", analysisStatus: "none" }
      : {}),
    mos: event.mos ?? call.mos,
    jitterMs: event.jitter_ms ?? call.jitterMs,
    packetLossPct: event.packet_loss_pct ?? call.packetLossPct,
    qos: (event.qos as Record<string, unknown> | null | undefined) ?? call.qos,
    dtmf: event.dtmf ?? call.dtmf,
    updatedAt: event.at,
  };
  // Written once: over a live call, or over the ledger's node_lost end when this is the real one.
  const open = notInArray(calls.status, ENDED);
  const where = message.supersede ? or(open, eq(calls.endReason, "node_lost")) : open;
  const writes: BatchItem<"sqlite">[] = [
    s.db
      .update(calls)
      .set(patch)
      .where(and(eq(calls.id, call.id), where)),
  ];
  const ladder = (event.ladder ?? []).map((m, seq) => ({
    customerId: call.customerId,
    callId: call.id,
    seq,
    timeStamp: m.time_stamp,
    direction: m.direction,
    method: m.method,
    status: m.status ?? null,
    fromIp: m.fromip,
    toIp: m.toip,
    fromTag: m.fromtag ?? null,
    toTag: m.totag ?? null,
    firstLine: m.first_line,
    headers: m.headers ?? null,
    raw: m.raw ?? null,
  }));
  for (const slice of d1Chunks(ladder, paramsPerRow(callSipMessages))) {
    writes.push(s.db.insert(callSipMessages).values(slice).onConflictDoNothing());
  }
  await runBatch(s.db, writes);
}
