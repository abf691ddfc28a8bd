// The account's live calls (table active_calls): a row a call from its admission to its end, with
// its terms, the credit it holds, the node and boot that carry it, the last event seq applied and
// its record. Only this file writes the table; the AccountLedger's balance is kept apart (Books).
import type { CallRecord } from "./admission.ts";
import type { Reservation, Terms } from "./billing.ts";
import type { Held, LiveCall, LiveRow } from "./types.ts";

export type NewLiveCall = {
  callId: string;
  terms: Terms;
  reservation: Reservation;
  admittedAt: string;
  nodeId: string;
  bootId: string | null;
  record: CallRecord;
};

export class LiveCallTable {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** A call admitted, ringing, holding its first slice of credit. */
  insert(call: NewLiveCall): void {
    this.sql.exec(
      `INSERT INTO active_calls (call_id, terms, reservation, reserved_micros, pilot_seconds, included_seconds, admitted_at,
         node_id, boot_id, status, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'ringing', ?)`,
      call.callId,
      JSON.stringify(call.terms),
      JSON.stringify(call.reservation),
      call.reservation.reservedMicros,
      call.reservation.pilotSeconds,
      call.reservation.includedSeconds,
      call.admittedAt,
      call.nodeId,
      call.bootId,
      JSON.stringify(call.record),
    );
  }

  row(callId: string): LiveRow | undefined {
    return this.sql.exec<LiveRow>("SELECT * FROM active_calls WHERE call_id = ?", callId).toArray()[0];
  }

  /** The calls a node's boot carries; with `admittedBefore`, only those admitted by then. */
  ofNode(nodeId: string, bootId: string, admittedBefore?: string): LiveRow[] {
    if (admittedBefore === undefined) {
      return this.sql.exec<LiveRow>("SELECT * FROM active_calls WHERE node_id = ? AND boot_id = ?", nodeId, bootId).toArray();
    }
    return this.sql
      .exec<LiveRow>("SELECT * FROM active_calls WHERE node_id = ? AND boot_id = ? AND admitted_at <= ?", nodeId, bootId, admittedBefore)
      .toArray();
  }

  /** Newest first. */
  list(): LiveCall[] {
    return this.sql
      .exec<LiveRow>("SELECT * FROM active_calls ORDER BY admitted_at DESC")
      .toArray()
      .map((row) => ({
        callId: row.call_id,
        nodeId: row.node_id,
        bootId: row.boot_id,
        status: row.status === "active" ? "active" : "ringing",
        answeredAt: row.answered_at,
        grantedSeconds: reservationOf(row).maxCallSeconds,
        record: recordOf(row) ?? ({ id: row.call_id } as CallRecord),
      }));
  }

  /** What the live calls hold between them (a port each, their reservations). */
  held(): Held {
    return this.sql
      .exec<Held>(
        `SELECT COUNT(*) AS calls, COALESCE(SUM(reserved_micros), 0) AS reserved_micros,
         COALESCE(SUM(pilot_seconds), 0) AS pilot_seconds, COALESCE(SUM(included_seconds), 0) AS included_seconds
         FROM active_calls`,
      )
      .one();
  }

  /** The seq of the last event applied to the call, so a report sent again changes nothing. */
  noteSeq(callId: string, seq: number): void {
    this.sql.exec("UPDATE active_calls SET last_seq = ? WHERE call_id = ?", seq, callId);
  }

  markAnswered(callId: string, at: string): void {
    this.sql.exec("UPDATE active_calls SET status = 'active', answered_at = ? WHERE call_id = ?", at, callId);
  }

  /** The call's credit grown to `reservation` (a top-up). */
  hold(callId: string, reservation: Reservation): void {
    this.sql.exec(
      "UPDATE active_calls SET reservation = ?, reserved_micros = ?, pilot_seconds = ?, included_seconds = ? WHERE call_id = ?",
      JSON.stringify(reservation),
      reservation.reservedMicros,
      reservation.pilotSeconds,
      reservation.includedSeconds,
      callId,
    );
  }

  /** The call ended: its port and credit released. */
  remove(callId: string): void {
    this.sql.exec("DELETE FROM active_calls WHERE call_id = ?", callId);
  }
}

export const termsOf = (row: LiveRow): Terms => JSON.parse(row.terms) as Terms;
export const reservationOf = (row: LiveRow): Reservation => JSON.parse(row.reservation) as Reservation;
export const recordOf = (row: LiveRow): CallRecord | null => (row.record ? (JSON.parse(row.record) as CallRecord) : null);
