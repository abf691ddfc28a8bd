// Writes what the account ledgers send through the call-records queue into D1: a call's record
// when it is admitted or refused (its columns as the ledger named them, screening and
// attestation included), then its events (ringing, answered, transfer, ended with the
// charge the ledger made and the ladder). Every write is idempotent and safe out of order, as a
// queue may deliver a message twice or late: a record is inserted once; an event never reopens an
// ended call; an end is written once, unless it is the real end replacing a node_lost one.
// A whole queue batch costs D1 three round trips (the records, which calls exist, every event's
// statement in one batch), however many calls it carries: events are written as conditional
// updates computed in SQL from the row as it stands, never read first.
import { and, eq, inArray, notInArray, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { CallRecordMessage } from "../../../durable-objects/call-ledger/call-ledger.ts";
import type { CallEvent, EndedEvent, TransferEvent } from "../../../schema/node-api.ts";
import { callSipMessages, calls } from "../../../schema/calls.ts";
import { ENDED_CALL_STATUSES } from "../../../schema/enums.ts";
import { d1Chunks, paramsPerRow, runBatch, type Db } from "../../lib/db.ts";
import { q850Text } from "../../lib/q850.ts";
import type { Services } from "../context.ts";
import { recordStoredMedia } from "./stored-media.ts";

type EventMessage = Extract<CallRecordMessage, { type: "event" }>;

/** What became of one message: written, or to be tried again (its call's record is not in D1 yet). */
export type WriteOutcome = "written" | "retry";

/**
 * Writes a batch of messages: records first (so the events of a new call find their row), then
 * every event in order, then what stored files change (a recording starts the analysis).
 */
export async function writeCallRecords(s: Services, messages: CallRecordMessage[]): Promise<WriteOutcome[]> {
  const records = messages.flatMap((m) => (m.type === "record" ? [m.record as typeof calls.$inferInsert] : []));
  for (const slice of d1Chunks(records, paramsPerRow(calls))) {
    await s.db.insert(calls).values(slice).onConflictDoNothing();
  }
  const present = await existingCalls(s.db, [...new Set(messages.flatMap((m) => (needsCall(m) ? [m.call_id] : [])))]);
  const events = messages.filter((m): m is EventMessage => m.type === "event" && present.has(m.call_id));
  await runBatch(
    s.db,
    events.flatMap((m) => statementsFor(s.db, m)),
  );
  for (const m of messages) if (m.type === "media" && present.has(m.call_id)) await recordStoredMedia(s, m.call_id, m.name, m.key);
  return messages.map((m) => (needsCall(m) && !present.has(m.call_id) ? "retry" : "written"));
}

/** Events and files change a call's row, so they wait for it; a screening breach is the consumer's (nothing to write here). */
const needsCall = (m: CallRecordMessage): m is Extract<CallRecordMessage, { type: "event" | "media" }> =>
  m.type === "event" || m.type === "media";

async function existingCalls(db: Db, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const slice of d1Chunks(ids, 1)) {
    const rows = await db.select({ id: calls.id }).from(calls).where(inArray(calls.id, slice));
    for (const row of rows) found.add(row.id);
  }
  return found;
}

function statementsFor(db: Db, message: EventMessage): BatchItem<"sqlite">[] {
  const { event } = message;
  if (event.type === "ended") return endStatements(db, message, event);
  if (event.type === "transfer") return [transferStatement(db, message.call_id, event)];
  return [progressStatement(db, message.call_id, event)];
}

const notEnded = (callId: string) => and(eq(calls.id, callId), notInArray(calls.status, [...ENDED_CALL_STATUSES]));

/** Ringing and answered: a late report never reopens an ended call; the first answer time and codec stay. */
function progressStatement(db: Db, callId: string, event: Extract<CallEvent, { type: "ringing" | "answered" }>) {
  const patch =
    event.type === "ringing"
      ? {
          status: sql`CASE WHEN ${calls.status} = 'active' THEN 'active' ELSE 'ringing' END`,
          earlyMedia: given(bit(event.early_media), calls.earlyMedia),
        }
      : {
          status: "active",
          answeredAt: sql`coalesce(${calls.answeredAt}, ${event.at})`,
          codec: sql`coalesce(${event.codec ?? null}, ${calls.codec})`,
        };
  return db
    .update(calls)
    .set({ ...patch, updatedAt: event.at } as never)
    .where(notEnded(callId));
}

/** A transfer's progress: accepted (REFER taken), then completed or failed; a late "accepted" never overwrites how it ended. */
function transferStatement(db: Db, callId: string, event: TransferEvent) {
  const lateAccepted =
    event.status === "accepted"
      ? sql`(${calls.transferStatus} IN ('completed', 'failed') AND ${calls.transferTarget} = ${event.target})`
      : sql`0`;
  return db
    .update(calls)
    .set({
      transferTarget: event.target,
      transferMode: event.mode,
      transferStatus: event.status,
      transferCode: event.code,
      transferAt: event.at,
      updatedAt: event.at,
    })
    .where(and(eq(calls.id, callId), sql`NOT ${lateAccepted}`));
}

/** `value` when given, else what the row holds. */
const given = (value: unknown, column: unknown) => sql`coalesce(${value ?? null}, ${column})`;
/** A boolean as its column stores it (0 or 1), or null. */
const bit = (value: boolean | null | undefined) => (value === undefined || value === null ? null : value ? 1 : 0);

function endStatements(db: Db, message: EventMessage, event: EndedEvent): BatchItem<"sqlite">[] {
  const answeredAt = sql`coalesce(${event.answered_at ?? null}, ${calls.answeredAt})`;
  const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
  // Nothing will be recorded for a call never answered, or relayed only: nothing to analyse.
  const nothingToAnalyse = sql`(${calls.analysisStatus} = 'pending' AND (${answeredAt} IS NULL OR ${calls.processing} = 'relay_only'))`;
  const patch = {
    status: sql`CASE WHEN ${answeredAt} IS NOT NULL THEN 'completed' ELSE 'failed' END`,
    answeredAt,
    endedAt: event.at,
    durationSec: sql`max(0, CAST(round((julianday(${event.at}) - julianday(${calls.startedAt})) * 86400) AS INTEGER))`,
    billsec: message.charge?.billsec ?? 0,
    chargedMicros: message.charge?.charged_micros ?? 0,
    sipCode: event.sip_code,
    hangupBy: event.hangup_by,
    q850Cause: event.q850_cause ?? null,
    q850Text: q850Text(event.q850_cause),
    // The real end that replaces the ledger's node_lost end says how the call ended, even with no reason (a plain hangup).
    endReason: message.supersede ? (event.end_reason ?? null) : given(event.end_reason, calls.endReason),
    pddMs: given(event.pdd_ms, calls.pddMs),
    answerDelayMs: given(event.answer_delay_ms, calls.answerDelayMs),
    earlyMedia: given(bit(event.early_media), calls.earlyMedia),
    codec: given(event.codec, calls.codec),
    mediaIp: given(event.media_ip, calls.mediaIp),
    transcriptStatus: sql`CASE WHEN ${nothingToAnalyse} THEN 'none' ELSE ${calls.transcriptStatus} END`,
    analysisStatus: sql`CASE WHEN ${nothingToAnalyse} THEN 'none' ELSE ${calls.analysisStatus} END`,
    mos: given(event.mos, calls.mos),
    jitterMs: given(event.jitter_ms, calls.jitterMs),
    packetLossPct: given(event.packet_loss_pct, calls.packetLossPct),
    qos: given(json(event.qos), calls.qos),
    dtmf: given(json(event.dtmf), calls.dtmf),
    updatedAt: event.at,
  };
  // Written once: over a live call, or over the ledger's node_lost end when this is the real one.
  const open = notInArray(calls.status, [...ENDED_CALL_STATUSES]);
  const where = and(eq(calls.id, message.call_id), message.supersede ? or(open, eq(calls.endReason, "node_lost")) : open);
  const statements: BatchItem<"sqlite">[] = [
    db
      .update(calls)
      .set(patch as never)
      .where(where),
  ];
  const ladder = (event.ladder ?? []).map((m, seq) => ({
    customerId: message.customer_id,
    callId: message.call_id,
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
    statements.push(db.insert(callSipMessages).values(slice).onConflictDoNothing());
  }
  return statements;
}
