// What the pipeline and the signalling wrote about one call, read back: the current verdict
// (the newest analysis), the newest transcript, and the SIP log with its plain-text form (from the
// node's upload when there is one, see call-sip-log.ts, else the ladder rows).
// Provider and model stay inside: only the AI tier's name leaves.
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { analyses, callSipMessages, calls, transcripts } from "../../../schema/calls.ts";
import { isLiveCallStatus } from "../../../schema/enums.ts";
import { d1Chunks } from "../../lib/db.ts";
import { describeError } from "../../lib/errors.ts";
import type { Db } from "../../lib/db.ts";
import { toUsd } from "../../lib/money.ts";
import type { Services } from "../context.ts";
import { ladderText, messageOut, sipLogKey, uploadedSipLog, type LadderMessage } from "./sip-log.ts";
import { NotFound } from "../errors.ts";
import { writeCallRecords } from "./record-writer.ts";
import { owned } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";

type CallRow = typeof calls.$inferSelect;
type AnalysisRow = typeof analyses.$inferSelect;
type SipMessageRow = typeof callSipMessages.$inferSelect;

/**
 * The account's call, as every verb that names a call by id finds it (reads, share, case, prefill,
 * analysis, the MCP tools). Its D1 row, unless D1 is behind the account's ledger: no row yet, or the
 * call up in D1 while the ledger has its answer or its end, both on their way through the outbox
 * and the call-records queue. Then what the ledger knows is written to D1 first, by the queue's own
 * idempotent writer (the queue's later delivery changes nothing), and the row read again. Another
 * account's call is not in this account's ledger: 404 all the same.
 */
export async function callOfAccount(s: Services, principal: Principal, callId: string): Promise<CallRow> {
  const customerId = principal.customer.id;
  const row = await callRowOf(s.db, customerId, callId);
  // A call D1 shows as up: the account's ledger may know more of it (its answer, its end).
  if (row && !isLiveCallStatus(row.status)) return row;
  if (!row) {
    const brought = await bringFromLedger(s, customerId, callId, null);
    if (!brought) throw new NotFound("Call not found");
    return brought;
  }
  // D1 has the call: a ledger that cannot be asked now leaves it as D1 has it.
  const brought = await bringFromLedger(s, customerId, callId, row).catch((err: unknown) => {
    console.error("calls: the ledger's copy of a call D1 shows up could not be read", describeError(err));
    return null;
  });
  return brought ?? row;
}

const callRowOf = async (db: Db, customerId: string, callId: string): Promise<CallRow | null> =>
  (await db
    .select()
    .from(calls)
    .where(owned(calls, customerId, callId))
    .get()) ?? null;

/** The call's row after writing what the account's ledger knows ahead of `row` (null: the ledger knows nothing more). */
async function bringFromLedger(s: Services, customerId: string, callId: string, row: CallRow | null): Promise<CallRow | null> {
  const copy = await s.ledger(customerId).callCopy(callId);
  if (!copy) return null;
  const ahead = row === null || copy.state === "ended" || (copy.state === "active" && row.status === "ringing");
  if (!ahead) return null;
  await writeCallRecords(s, copy.messages);
  return callRowOf(s.db, customerId, callId);
}

/** The call's verdict: its newest analysis (the latest created, the latest id on a tie), or null. */
export async function newestAnalysis(db: Db, call: Pick<CallRow, "id" | "customerId">): Promise<AnalysisRow | null> {
  const row = await db
    .select()
    .from(analyses)
    .where(and(eq(analyses.callId, call.id), eq(analyses.customerId, call.customerId)))
    .orderBy(desc(analyses.createdAt), desc(analyses.id))
    .limit(1)
    .get();
  return row ?? null;
}

/** What a list item's verdict summary takes from the current analysis besides the calls row's columns. */
export type VerdictExtras = Pick<AnalysisRow, "title" | "redFlags" | "entity" | "keywords">;

/** The newest analysis of each call, for a page of calls: call id → its title, red flags, entity, keywords. */
export async function verdictExtrasOf(db: Db, customerId: string, callIds: string[]): Promise<Map<string, VerdictExtras>> {
  const found = new Map<string, VerdictExtras>();
  for (const slice of d1Chunks(callIds, 1, 1)) {
    const rows = await db
      .select({
        callId: analyses.callId,
        title: analyses.title,
        redFlags: analyses.redFlags,
        entity: analyses.entity,
        keywords: analyses.keywords,
      })
      .from(analyses)
      .where(and(eq(analyses.customerId, customerId), inArray(analyses.callId, slice)))
      .orderBy(asc(analyses.callId), desc(analyses.createdAt), desc(analyses.id));
    // Newest first within each call: the first row seen is the verdict.
    for (const { callId, ...extras } of rows) if (!found.has(callId)) found.set(callId, extras);
  }
  return found;
}

export function analysisOut(row: AnalysisRow) {
  return {
    id: row.id,
    ai_mode: row.aiMode,
    location: row.location,
    prompt_version: row.promptVersion,
    title: row.title,
    probability: row.probability,
    category: row.category,
    entity: row.entity,
    caller_identity: row.callerIdentity,
    red_flags: row.redFlags,
    language: row.language,
    tcpa_comment: row.tcpaComment,
    summary: row.summary,
    recommendation: row.recommendation as "block" | "review" | "allow",
    keywords: row.keywords,
    route_alert: row.routeAlert,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cost: toUsd(row.costMicros),
    latency_ms: row.latencyMs,
    created_at: row.createdAt,
  };
}

const transcriptMeta = {
  id: transcripts.id,
  location: transcripts.location,
  language: transcripts.language,
  audioSeconds: transcripts.audioSeconds,
  costMicros: transcripts.costMicros,
  createdAt: transcripts.createdAt,
};

const transcriptOrder = [desc(transcripts.createdAt), desc(transcripts.id)];
const transcriptOf = (call: Pick<CallRow, "id" | "customerId">) =>
  and(eq(transcripts.callId, call.id), eq(transcripts.customerId, call.customerId));

type TranscriptMetaRow = { [K in keyof typeof transcriptMeta]: (typeof transcripts.$inferSelect)[K] };

/** The newest transcript's description, without its text. */
export async function newestTranscriptMeta(db: Db, call: Pick<CallRow, "id" | "customerId">) {
  const row = await db
    .select(transcriptMeta)
    .from(transcripts)
    .where(transcriptOf(call))
    .orderBy(...transcriptOrder)
    .limit(1)
    .get();
  return row ?? null;
}

export function transcriptMetaOut(row: TranscriptMetaRow) {
  return {
    id: row.id,
    location: row.location,
    language: row.language,
    audio_seconds: row.audioSeconds,
    cost: toUsd(row.costMicros),
    created_at: row.createdAt,
  };
}

/** GET /calls/{id}/analysis: the current verdict in full. */
export async function getCallAnalysis(s: Services, principal: Principal, callId: string) {
  const call = await callOfAccount(s, principal, callId);
  const row = await newestAnalysis(s.db, call);
  if (!row) throw new NotFound("Analysis not found");
  return analysisOut(row);
}

/** GET /calls/{id}/transcript: the newest transcript, text and segments. */
export async function getCallTranscript(s: Services, principal: Principal, callId: string) {
  const call = await callOfAccount(s, principal, callId);
  const row = await s.db
    .select({ ...transcriptMeta, text: transcripts.text, segments: transcripts.segments })
    .from(transcripts)
    .where(transcriptOf(call))
    .orderBy(...transcriptOrder)
    .limit(1)
    .get();
  if (!row) throw new NotFound("Transcript not found");
  return { ...transcriptMetaOut(row), text: row.text, segments: row.segments };
}

/** The call's SIP messages in the order the node saw them. */
export async function sipMessagesOf(db: Db, call: Pick<CallRow, "id" | "customerId">): Promise<SipMessageRow[]> {
  return db
    .select()
    .from(callSipMessages)
    .where(and(eq(callSipMessages.callId, call.id), eq(callSipMessages.customerId, call.customerId)))
    .orderBy(asc(callSipMessages.seq));
}

export function sipMessageOut(row: SipMessageRow) {
  return {
    time_stamp: row.timeStamp,
    direction: row.direction,
    method: row.method,
    status: row.status,
    fromip: row.fromIp,
    toip: row.toIp,
    fromtag: row.fromTag,
    totag: row.toTag,
    first_line: row.firstLine,
    headers: row.headers,
  };
}

/** Whether the call has a SIP ladder to show: the node's uploaded log, or the ladder rows of its end event. */
export async function hasSipLadder(s: Services, call: Pick<CallRow, "id" | "customerId">): Promise<boolean> {
  if (await s.media.head(sipLogKey(call))) return true;
  const row = await s.db
    .select({ seq: callSipMessages.seq })
    .from(callSipMessages)
    .where(and(eq(callSipMessages.callId, call.id), eq(callSipMessages.customerId, call.customerId)))
    .limit(1)
    .get();
  return row !== undefined;
}

/**
 * GET /calls/{id}/sip-log: every message the node saw or sent when it uploaded the call's log
 * (call-sip-log.ts), else the ladder of its end event.
 */
export async function getCallSipLog(s: Services, principal: Principal, callId: string) {
  const call = await callOfAccount(s, principal, callId);
  const uploaded = await uploadedSipLog(s, call);
  const messages: LadderMessage[] =
    uploaded?.messages ?? (await sipMessagesOf(s.db, call)).map((row) => ({ ...sipMessageOut(row), raw: row.raw }));
  let text = ladderText(messages);
  if (uploaded?.omittedBytes) {
    text += `\n---- ${uploaded.omittedBytes} more bytes of messages not shown: the evidence bundle's sip-log.jsonl has them\n`;
  }
  return { call_id: call.id, sip_call_id: call.sipCallId, messages: messages.map(messageOut), text };
}
