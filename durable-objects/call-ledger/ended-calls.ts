// What the ledger keeps of the calls it ended or refused: how each was settled (table
// settled_calls: the end reason, and the terms and charge a real end reported after a node_lost
// end is charged again from), and for ENDED_RECORDS_KEEP_MS its record and end (table
// ended_records), which the API reads while they are on their way to D1.
import type { CallRecord } from "./admission.ts";
import type { CallRecordMessage, LedgerCallCopy, Settled } from "./types.ts";

/**
 * How long an ended call's record stays in the ledger after the end: the call-records queue delivers
 * in seconds, minutes when D1 or the queue is behind; past this the API has only D1 for the call.
 */
export const ENDED_RECORDS_KEEP_MS = 15 * 60_000;

export class EndedCalls {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** A refused call: nothing to settle, but known to the ledger, so its SIP log is taken even before D1 has the record. */
  noteRefused(callId: string, reason: string): void {
    this.sql.exec("INSERT OR IGNORE INTO settled_calls (call_id, result, end_reason) VALUES (?, '{}', ?)", callId, reason);
  }

  /** How the call was settled; replaces what was kept before (the node_lost end a real end reconciles). */
  keepSettled(callId: string, result: Settled, endReason: string | null): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO settled_calls (call_id, result, end_reason) VALUES (?, ?, ?)",
      callId,
      JSON.stringify(result),
      endReason,
    );
  }

  settled(callId: string): { result: Settled; endReason: string | null } | undefined {
    const row = this.sql
      .exec<{ result: string; end_reason: string | null }>("SELECT result, end_reason FROM settled_calls WHERE call_id = ?", callId)
      .toArray()[0];
    return row && { result: JSON.parse(row.result) as Settled, endReason: row.end_reason };
  }

  /** Why the call ended ("ended" when no reason was given), or undefined for a call the ledger never ended. */
  endReasonOf(callId: string): string | undefined {
    const row = this.sql.exec<{ end_reason: string | null }>("SELECT end_reason FROM settled_calls WHERE call_id = ?", callId).toArray()[0];
    return row ? (row.end_reason ?? "ended") : undefined;
  }

  /** Keeps an ended call's record and its end (without the SIP ladder, which the queue brings) for ENDED_RECORDS_KEEP_MS. */
  keep(callId: string, record: CallRecord, end: CallRecordMessage | null): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO ended_records (call_id, record, end_message, ended_ms) VALUES (?, ?, ?, ?)",
      callId,
      JSON.stringify(record),
      end ? JSON.stringify(withoutLadder(end)) : null,
      Date.now(),
    );
  }

  /** The real end of a call ended as node_lost replaces that end here too. */
  replaceEnd(callId: string, end: CallRecordMessage): void {
    this.sql.exec("UPDATE ended_records SET end_message = ? WHERE call_id = ?", JSON.stringify(withoutLadder(end)), callId);
  }

  /** The kept record and end of a call ended lately, as the messages that bring D1 to it (null: none kept). */
  copyOf(callId: string): LedgerCallCopy | null {
    const ended = this.sql
      .exec<{ record: string; end_message: string | null }>("SELECT record, end_message FROM ended_records WHERE call_id = ?", callId)
      .toArray()[0];
    if (!ended) return null;
    const messages: CallRecordMessage[] = [{ type: "record", record: JSON.parse(ended.record) as CallRecord }];
    if (ended.end_message) messages.push(JSON.parse(ended.end_message) as CallRecordMessage);
    return { state: "ended", messages };
  }

  /** Forgets the records of calls ended over ENDED_RECORDS_KEEP_MS ago (D1 has had them long since). */
  prune(nowMs: number): void {
    this.sql.exec("DELETE FROM ended_records WHERE ended_ms < ?", nowMs - ENDED_RECORDS_KEEP_MS);
  }
}

/** An end message without its SIP ladder (the bulk of it), for keeping. */
function withoutLadder(message: CallRecordMessage): CallRecordMessage {
  if (message.type !== "event" || message.event.type !== "ended") return message;
  const { ladder: _ladder, ...event } = message.event;
  return { ...message, event };
}
