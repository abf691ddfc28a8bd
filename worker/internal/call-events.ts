// What the SIP node reports as a call goes: ringing, answered, ended. The end releases the
// port and charges through the AccountLedger (idempotent by call id, so a repeated report
// charges once), then completes the call row and its SIP ladder.
import { and, eq, notInArray, sql } from "drizzle-orm";
import type { CallEvent, EndedEvent, TransferEvent } from "../../schema/node-api.ts";
import { callSipMessages, calls } from "../../schema/calls.ts";
import type { BatchItem } from "drizzle-orm/batch";
import { d1Chunks, paramsPerRow, runBatch, type Db } from "../lib/db.ts";
import type { Services } from "../services/context.ts";
import { notFound } from "../lib/errors.ts";
import { toUsd } from "../lib/money.ts";
import { q850Text } from "../lib/q850.ts";

type CallRow = typeof calls.$inferSelect;

const ENDED = new Set(["completed", "failed", "rejected"]);

/** What the node hears back from any event: the call's state and charge as they now stand. */
const answerOf = (call: Pick<CallRow, "id" | "status" | "billsec" | "chargedMicros">) => ({
  call_id: call.id,
  status: call.status,
  billsec: call.billsec,
  charged_amount: toUsd(call.chargedMicros),
});

export async function recordCallEvent(deps: Services, callId: string, event: CallEvent) {
  if (event.type === "answered") {
    const answered = await markAnswered(deps.db, callId, event);
    if (answered) return answered;
    // Unknown, or ended already: the general path below tells which.
  }
  const call = await deps.db.select().from(calls).where(eq(calls.id, callId)).get();
  if (!call) throw notFound("Call not found");
  if (event.type === "ended") return endCall(deps, call, event);
  if (event.type === "transfer") return recordTransfer(deps, call, event);
  // A late ringing or answered report never reopens an ended call.
  if (!ENDED.has(call.status)) {
    const patch: Partial<CallRow> =
      event.type === "ringing"
        ? { status: call.status === "active" ? "active" : "ringing", earlyMedia: event.early_media ?? call.earlyMedia }
        : { status: "active", answeredAt: call.answeredAt ?? event.at, codec: event.codec ?? call.codec };
    await deps.db
      .update(calls)
      .set({ ...patch, updatedAt: event.at })
      .where(eq(calls.id, call.id));
    Object.assign(call, patch);
  }
  return answerOf(call);
}

/** The answer, in one statement on the hot path of every call; null when the call is unknown or over. */
async function markAnswered(db: Db, callId: string, event: Extract<CallEvent, { type: "answered" }>) {
  const row = await db
    .update(calls)
    .set({
      status: "active",
      answeredAt: sql`coalesce(${calls.answeredAt}, ${event.at})`,
      codec: sql`coalesce(${event.codec ?? null}, ${calls.codec})`,
      updatedAt: event.at,
    })
    .where(and(eq(calls.id, callId), notInArray(calls.status, [...ENDED])))
    .returning({ id: calls.id, status: calls.status, billsec: calls.billsec, chargedMicros: calls.chargedMicros })
    .get();
  return row ? answerOf(row) : null;
}

/** A transfer's progress: accepted (REFER taken), then completed or failed with its SIP code. */
async function recordTransfer(deps: Services, call: CallRow, event: TransferEvent) {
  const settled = call.transferStatus === "completed" || call.transferStatus === "failed";
  // A late "accepted" never overwrites how the same transfer ended.
  if (settled && event.status === "accepted" && call.transferTarget === event.target) {
    return answerOf(call);
  }
  await deps.db
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
  return answerOf(call);
}

async function endCall(deps: Services, call: CallRow, event: EndedEvent) {
  const answeredAt = event.answered_at ?? call.answeredAt;
  const answeredSeconds = answeredAt ? Math.max(0, (Date.parse(event.at) - Date.parse(answeredAt)) / 1000) : 0;
  const charge = await deps.ledger(call.customerId).endCall({
    callId: call.id,
    answeredSeconds,
    at: event.at,
    description: `Call ${call.dialed ?? ""}`.trim(),
  });
  const billsec = charge.ok ? charge.billsec : 0;
  const chargedMicros = charge.ok ? charge.chargedMicros : 0;
  const patch: Partial<CallRow> = {
    status: answeredAt ? "completed" : "failed",
    answeredAt,
    endedAt: event.at,
    durationSec: Math.max(0, Math.round((Date.parse(event.at) - Date.parse(call.startedAt)) / 1000)),
    billsec,
    chargedMicros,
    sipCode: event.sip_code,
    hangupBy: event.hangup_by,
    q850Cause: event.q850_cause ?? null,
    q850Text: q850Text(event.q850_cause),
    endReason: event.end_reason ?? call.endReason,
    pddMs: event.pdd_ms ?? call.pddMs,
    answerDelayMs: event.answer_delay_ms ?? call.answerDelayMs,
    earlyMedia: event.early_media ?? call.earlyMedia,
    codec: event.codec ?? call.codec,
    mediaIp: event.media_ip ?? call.mediaIp,
    // Nothing will be recorded for a call never answered, or relayed only: nothing to analyse.
    ...(call.analysisStatus === "pending" && (!answeredAt || call.processing === "relay_only")
      ? { transcriptStatus: "none", analysisStatus: "none" }
      : {}),
    mos: event.mos ?? null,
    jitterMs: event.jitter_ms ?? null,
    packetLossPct: event.packet_loss_pct ?? null,
    qos: (event.qos as Record<string, unknown> | null | undefined) ?? null,
    dtmf: event.dtmf ?? null,
    updatedAt: event.at,
  };
  const writes: BatchItem<"sqlite">[] = [deps.db.update(calls).set(patch).where(eq(calls.id, call.id))];
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
    writes.push(deps.db.insert(callSipMessages).values(slice).onConflictDoNothing());
  }
  await runBatch(deps.db, writes);
  return answerOf({ id: call.id, status: patch.status!, billsec, chargedMicros });
}
