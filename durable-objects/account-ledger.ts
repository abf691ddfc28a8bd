// AccountLedger: one instance per account (idFromName(account key)), the only writer of that
// account's money and concurrency. Balance, ports in use, cycle minutes, pilot use, active
// call reservations and ledger entries live in this object's own SQLite storage; every method
// runs alone, so no two requests can both take the last port or spend the last dollar.
// Outcomes cross the RPC boundary as values ({ok: false, reason}), never as exceptions.
import { DurableObject } from "cloudflare:workers";
import { reserve, settle, type Reservation, type Terms } from "./call-billing.ts";

export type LedgerEntry = {
  id: string;
  type: string;
  amount_micros: number;
  balance_after_micros: number;
  call_id: string | null;
  description: string | null;
  waived_micros: number;
  created_at: string;
};

export type LedgerSummary = {
  balance_micros: number;
  /** Balance less what running calls have set aside. */
  available_micros: number;
  cycle_seconds_used: number;
  pilot_seconds_used: number;
  waived_total_micros: number;
  ports_in_use: number;
};

export type MoneyInput = {
  entryId: string;
  type: string;
  amountMicros: number;
  description?: string | null;
  createdAt: string;
};

export type CreditResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "invalid_amount" };
export type DebitResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "invalid_amount" | "insufficient_balance" };

export type AdmitInput = {
  callId: string;
  ports: number;
  terms: Terms;
  /** The pilot's allowance, when the pilot is running; its use is counted here. */
  pilot: { minutesLimit: number | null } | null;
  /** Minutes the plan includes per cycle (null: none). */
  includedMinutes: number | null;
  at: string;
};

export type Admission = { ok: true; callId: string; maxCallSeconds: number; ratePerMinuteMicros: number };
export type AdmitResult = Admission | { ok: false; reason: "no_port" | "no_credit" };

export type CallEndInput = { callId: string; answeredSeconds: number; at: string; description?: string | null };
export type CallCharge = {
  ok: true;
  callId: string;
  billsec: number;
  chargedMicros: number;
  waivedMicros: number;
  ratePerMinuteMicros: number;
  balanceAfterMicros: number;
};
export type CallEndResult = CallCharge | { ok: false; reason: "unknown_call" };

const ENTRY_COLUMNS = "id, type, amount_micros, balance_after_micros, call_id, description, waived_micros, created_at";

export class AccountLedger extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        balance_micros INTEGER NOT NULL,
        cycle_seconds_used INTEGER NOT NULL DEFAULT 0,
        pilot_seconds_used INTEGER NOT NULL DEFAULT 0,
        waived_total_micros INTEGER NOT NULL DEFAULT 0
      );
      INSERT OR IGNORE INTO state (id, balance_micros) VALUES (1, 0);
      CREATE TABLE IF NOT EXISTS entries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        amount_micros INTEGER NOT NULL,
        balance_after_micros INTEGER NOT NULL,
        call_id TEXT,
        description TEXT,
        waived_micros INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS active_calls (
        call_id TEXT PRIMARY KEY,
        terms TEXT NOT NULL,
        reservation TEXT NOT NULL,
        reserved_micros INTEGER NOT NULL,
        pilot_seconds INTEGER NOT NULL,
        included_seconds INTEGER NOT NULL,
        admitted_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS settled_calls (
        call_id TEXT PRIMARY KEY,
        result TEXT NOT NULL
      );
    `);
  }

  summary(): LedgerSummary {
    return this.summarise(this.state(), this.held());
  }

  /** Adds money (welcome credit, top-up, refund). Idempotent by entry id. */
  credit(input: MoneyInput): CreditResult {
    if (!isMoney(input.amountMicros)) return { ok: false, reason: "invalid_amount" };
    const existing = this.entry(input.entryId);
    if (existing) return { ok: true, entry: existing };
    return { ok: true, entry: this.post(input.entryId, input.type, input.amountMicros, null, input.description ?? null, 0, input.createdAt) };
  }

  /** Takes money (analysis fee, plan fee, exchange purchase) only if the available balance covers it. Idempotent by entry id. */
  debit(input: MoneyInput): DebitResult {
    if (!isMoney(input.amountMicros)) return { ok: false, reason: "invalid_amount" };
    const existing = this.entry(input.entryId);
    if (existing) return { ok: true, entry: existing };
    if (this.summary().available_micros < input.amountMicros) return { ok: false, reason: "insufficient_balance" };
    return { ok: true, entry: this.post(input.entryId, input.type, -input.amountMicros, null, input.description ?? null, 0, input.createdAt) };
  }

  /** Takes a port and sets aside the call's longest possible charge. Idempotent by call id. */
  admit(input: AdmitInput): AdmitResult {
    const existing = this.activeCall(input.callId);
    if (existing) return admitted(input.callId, existing.terms, existing.reservation);
    const held = this.held();
    const summary = this.summarise(this.state(), held);
    if (summary.ports_in_use >= input.ports) return { ok: false, reason: "no_port" };
    const pilotLeft = input.pilot?.minutesLimit == null ? 0 : input.pilot.minutesLimit * 60 - summary.pilot_seconds_used - held.pilot_seconds;
    const includedLeft = input.includedMinutes == null ? 0 : input.includedMinutes * 60 - summary.cycle_seconds_used - held.included_seconds;
    const reservation = reserve(
      input.terms,
      { pilot: Math.max(0, pilotLeft), included: Math.max(0, includedLeft) },
      summary.available_micros,
    );
    if (!reservation) return { ok: false, reason: "no_credit" };
    this.sql.exec(
      `INSERT INTO active_calls (call_id, terms, reservation, reserved_micros, pilot_seconds, included_seconds, admitted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      input.callId,
      JSON.stringify(input.terms),
      JSON.stringify(reservation),
      reservation.reservedMicros,
      reservation.pilotSeconds,
      reservation.includedSeconds,
      input.at,
    );
    return admitted(input.callId, input.terms, reservation);
  }

  /** Releases the port and charges the call, on the terms it was admitted with. A second report returns the first result. */
  endCall(input: CallEndInput): CallEndResult {
    const settled = this.sql.exec<{ result: string }>("SELECT result FROM settled_calls WHERE call_id = ?", input.callId).toArray()[0];
    if (settled) return JSON.parse(settled.result) as CallCharge;
    const active = this.activeCall(input.callId);
    if (!active) return { ok: false, reason: "unknown_call" };
    const bill = settle(active.terms, active.reservation, input.answeredSeconds);
    let balanceAfter = this.state().balance_micros;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM active_calls WHERE call_id = ?", input.callId);
      this.sql.exec(
        `UPDATE state SET cycle_seconds_used = cycle_seconds_used + ?, pilot_seconds_used = pilot_seconds_used + ?,
         waived_total_micros = waived_total_micros + ? WHERE id = 1`,
        bill.billsec - bill.waivedSeconds,
        bill.waivedSeconds,
        bill.waivedMicros,
      );
      if (bill.billsec > 0) {
        const entry = this.post(`call:${input.callId}`, "call", -bill.chargedMicros, input.callId, input.description ?? null, bill.waivedMicros, input.at);
        balanceAfter = entry.balance_after_micros;
      }
    });
    const result: CallCharge = {
      ok: true,
      callId: input.callId,
      billsec: bill.billsec,
      chargedMicros: bill.chargedMicros,
      waivedMicros: bill.waivedMicros,
      ratePerMinuteMicros: active.terms.ratePerMinuteMicros,
      balanceAfterMicros: balanceAfter,
    };
    this.sql.exec("INSERT INTO settled_calls (call_id, result) VALUES (?, ?)", input.callId, JSON.stringify(result));
    return result;
  }

  /** Call ids holding a port now (for reconciling with the SIP nodes). */
  activeCallIds(): string[] {
    return this.sql.exec<{ call_id: string }>("SELECT call_id FROM active_calls ORDER BY admitted_at").toArray().map((r) => r.call_id);
  }

  /** A new billing cycle: included minutes start again. */
  startCycle(): void {
    this.sql.exec("UPDATE state SET cycle_seconds_used = 0 WHERE id = 1");
  }

  /** Newest first. */
  listEntries(limit: number, offset: number): { total: number; items: LedgerEntry[] } {
    const total = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM entries").one().n;
    const items = this.sql.exec<LedgerEntry>(`SELECT ${ENTRY_COLUMNS} FROM entries ORDER BY seq DESC LIMIT ? OFFSET ?`, limit, offset).toArray();
    return { total, items };
  }

  private post(id: string, type: string, amount: number, callId: string | null, description: string | null, waived: number, at: string): LedgerEntry {
    const balanceAfter = this.state().balance_micros + amount;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("UPDATE state SET balance_micros = ? WHERE id = 1", balanceAfter);
      this.sql.exec(
        `INSERT INTO entries (id, type, amount_micros, balance_after_micros, call_id, description, waived_micros, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        type,
        amount,
        balanceAfter,
        callId,
        description,
        waived,
        at,
      );
    });
    return this.entry(id)!;
  }

  private state() {
    return this.sql
      .exec<{ balance_micros: number; cycle_seconds_used: number; pilot_seconds_used: number; waived_total_micros: number }>(
        "SELECT balance_micros, cycle_seconds_used, pilot_seconds_used, waived_total_micros FROM state WHERE id = 1",
      )
      .one();
  }

  private summarise(state: ReturnType<AccountLedger["state"]>, held: ReturnType<AccountLedger["held"]>): LedgerSummary {
    return { ...state, available_micros: state.balance_micros - held.reserved_micros, ports_in_use: held.calls };
  }

  private held() {
    return this.sql
      .exec<{ calls: number; reserved_micros: number; pilot_seconds: number; included_seconds: number }>(
        `SELECT COUNT(*) AS calls, COALESCE(SUM(reserved_micros), 0) AS reserved_micros,
         COALESCE(SUM(pilot_seconds), 0) AS pilot_seconds, COALESCE(SUM(included_seconds), 0) AS included_seconds
         FROM active_calls`,
      )
      .one();
  }

  private activeCall(callId: string): { terms: Terms; reservation: Reservation } | undefined {
    const row = this.sql.exec<{ terms: string; reservation: string }>("SELECT terms, reservation FROM active_calls WHERE call_id = ?", callId).toArray()[0];
    return row ? { terms: JSON.parse(row.terms) as Terms, reservation: JSON.parse(row.reservation) as Reservation } : undefined;
  }

  private entry(id: string): LedgerEntry | undefined {
    return this.sql.exec<LedgerEntry>(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE id = ?`, id).toArray()[0];
  }
}

const isMoney = (micros: number) => Number.isSafeInteger(micros) && micros > 0;

const admitted = (callId: string, terms: Terms, reservation: Reservation): Admission => ({
  ok: true,
  callId,
  maxCallSeconds: reservation.maxCallSeconds,
  ratePerMinuteMicros: terms.ratePerMinuteMicros,
});
