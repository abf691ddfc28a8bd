// AccountLedger: one instance per account (idFromName(account key)), the only writer of that
// account's money and concurrency. Balance, ports in use, cycle minutes, pilot use, active
// call reservations and ledger entries live in this object's own SQLite storage; every method
// runs alone, so no two requests can both take the last port or spend the last dollar.
// Outcomes cross the RPC boundary as values ({ok: false, reason}), never as exceptions.
import { DurableObject } from "cloudflare:workers";
import { reserve, settle, type Reservation, type Terms } from "./call-billing.ts";
import { createSequences, nextNumber } from "./sequences.ts";

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
  /** The call the money is for (an analysis fee, its refund), shown with the entry. */
  callId?: string | null;
  description?: string | null;
  createdAt: string;
};

export type CreditResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "invalid_amount" };
export type RefundResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "nothing_to_refund" };
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

/**
 * The ledger's storage, one step per schema version: step i takes the storage from version i
 * to i + 1, and the one-row table schema_version records how many have run (Durable Object
 * SQLite refuses `PRAGMA user_version`). Append a step to add a table or a column; never edit
 * or reorder a step once it has shipped. Step 1 is written with IF NOT EXISTS because ledgers
 * made before versioning already hold its tables, with no schema_version: version 0.
 */
export const LEDGER_MIGRATIONS: ReadonlyArray<(sql: SqlStorage) => void> = [
  (sql) =>
    sql.exec(`
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
    `),
  // Per-account case and ticket numbers (sequences.ts).
  createSequences,
];

/** The version the storage is at: how many migration steps have run on it (0 before the first). */
export function storageVersion(sql: SqlStorage): number {
  const table = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").toArray();
  if (table.length === 0) return 0;
  return sql.exec<{ version: number }>("SELECT version FROM schema_version WHERE id = 1").toArray()[0]?.version ?? 0;
}

/**
 * Runs the steps the storage has not had yet, in one transaction with the version they bring
 * it to, so an instance sees either the whole new layout or the old one. A storage newer than
 * the code (a rollback after a migration) is refused rather than used with the wrong layout.
 */
export function migrate(storage: DurableObjectStorage, steps: ReadonlyArray<(sql: SqlStorage) => void>): void {
  storage.transactionSync(() => {
    const from = storageVersion(storage.sql);
    if (from > steps.length) throw new Error(`storage is at version ${from}, newer than the ${steps.length} steps this code knows`);
    if (from === steps.length) return;
    for (const step of steps.slice(from)) step(storage.sql);
    storage.sql.exec("CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
    storage.sql.exec(
      "INSERT INTO schema_version (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version",
      steps.length,
    );
  });
}

type Posting = {
  /** The entry's id; unique in the ledger. */
  id: string;
  type: string;
  /** Signed: positive adds to the balance, negative takes from it. */
  amountMicros: number;
  callId?: string | null;
  description?: string | null;
  waivedMicros?: number;
  at: string;
};

export class AccountLedger extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Synchronous, so no request reaches the object before its storage is at the current version.
    migrate(ctx.storage, LEDGER_MIGRATIONS);
  }

  summary(): LedgerSummary {
    return this.summarise(this.state(), this.held());
  }

  /** Adds money (welcome credit, top-up, refund). Idempotent by entry id. */
  credit(input: MoneyInput): CreditResult {
    if (!isMoney(input.amountMicros)) return { ok: false, reason: "invalid_amount" };
    return this.write(() => {
      const existing = this.entry(input.entryId);
      if (existing) return { ok: true, entry: existing };
      return { ok: true, entry: this.post(moneyPosting(input, 1)) };
    });
  }

  /** Takes money (analysis fee, plan fee, exchange purchase) only if the available balance covers it. Idempotent by entry id. */
  debit(input: MoneyInput): DebitResult {
    if (!isMoney(input.amountMicros)) return { ok: false, reason: "invalid_amount" };
    return this.write(() => {
      const existing = this.entry(input.entryId);
      if (existing) return { ok: true, entry: existing };
      if (this.summary().available_micros < input.amountMicros) return { ok: false, reason: "insufficient_balance" };
      return { ok: true, entry: this.post(moneyPosting(input, -1)) };
    });
  }

  /**
   * Gives back exactly what a debit took (a failed analysis, a cancelled order): nothing when that
   * debit never happened, and once only (idempotent by the refund's entry id).
   */
  refund(input: { entryId: string; ofEntryId: string; type: string; description?: string | null; createdAt: string }): RefundResult {
    return this.write(() => {
      const existing = this.entry(input.entryId);
      if (existing) return { ok: true, entry: existing };
      const original = this.entry(input.ofEntryId);
      if (!original || original.amount_micros >= 0) return { ok: false, reason: "nothing_to_refund" };
      const posting = { id: input.entryId, type: input.type, amountMicros: -original.amount_micros, at: input.createdAt };
      return { ok: true, entry: this.post({ ...posting, callId: original.call_id, description: input.description ?? null }) };
    });
  }

  /** Takes a port and sets aside the call's longest possible charge. Idempotent by call id. */
  admit(input: AdmitInput): AdmitResult {
    return this.write(() => {
      const existing = this.activeCall(input.callId);
      if (existing) return admitted(input.callId, existing.terms, existing.reservation);
      const held = this.held();
      const summary = this.summarise(this.state(), held);
      if (summary.ports_in_use >= input.ports) return { ok: false, reason: "no_port" };
      const pilotLimit = input.pilot?.minutesLimit;
      const pilotLeft = pilotLimit == null ? 0 : pilotLimit * 60 - summary.pilot_seconds_used - held.pilot_seconds;
      const included = input.includedMinutes;
      const includedLeft = included == null ? 0 : included * 60 - summary.cycle_seconds_used - held.included_seconds;
      const free = { pilot: Math.max(0, pilotLeft), included: Math.max(0, includedLeft) };
      const reservation = reserve(input.terms, free, summary.available_micros);
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
    });
  }

  /**
   * Releases the port and charges the call, on the terms it was admitted with. A second report
   * returns the first result. The release, the counters, the charge and the settled result are
   * written together or not at all.
   */
  endCall(input: CallEndInput): CallEndResult {
    return this.write(() => {
      const settled = this.sql.exec<{ result: string }>("SELECT result FROM settled_calls WHERE call_id = ?", input.callId).toArray()[0];
      if (settled) return JSON.parse(settled.result) as CallCharge;
      const active = this.activeCall(input.callId);
      if (!active) return { ok: false, reason: "unknown_call" };
      const bill = settle(active.terms, active.reservation, input.answeredSeconds);
      this.sql.exec("DELETE FROM active_calls WHERE call_id = ?", input.callId);
      this.sql.exec(
        `UPDATE state SET cycle_seconds_used = cycle_seconds_used + ?, pilot_seconds_used = pilot_seconds_used + ?,
         waived_total_micros = waived_total_micros + ? WHERE id = 1`,
        bill.billsec - bill.waivedSeconds,
        bill.waivedSeconds,
        bill.waivedMicros,
      );
      const charged =
        bill.billsec > 0
          ? this.post({
              id: `call:${input.callId}`,
              type: "call",
              amountMicros: -bill.chargedMicros,
              callId: input.callId,
              description: input.description,
              waivedMicros: bill.waivedMicros,
              at: input.at,
            })
          : null;
      const result: CallCharge = {
        ok: true,
        callId: input.callId,
        billsec: bill.billsec,
        chargedMicros: bill.chargedMicros,
        waivedMicros: bill.waivedMicros,
        ratePerMinuteMicros: active.terms.ratePerMinuteMicros,
        balanceAfterMicros: charged ? charged.balance_after_micros : this.state().balance_micros,
      };
      this.sql.exec("INSERT INTO settled_calls (call_id, result) VALUES (?, ?)", input.callId, JSON.stringify(result));
      return result;
    });
  }

  /** Call ids holding a port now (for reconciling with the SIP nodes). */
  activeCallIds(): string[] {
    return this.sql
      .exec<{ call_id: string }>("SELECT call_id FROM active_calls ORDER BY admitted_at")
      .toArray()
      .map((r) => r.call_id);
  }

  /** A new billing cycle: included minutes start again. */
  startCycle(): void {
    this.sql.exec("UPDATE state SET cycle_seconds_used = 0 WHERE id = 1");
  }

  /** The account's next case or ticket number: each handed out once, in order (sequences.ts). */
  nextNumber(sequence: "case" | "ticket"): number {
    return this.ctx.storage.transactionSync(() => nextNumber(this.sql, sequence));
  }

  /** Newest first. */
  listEntries(limit: number, offset: number): { total: number; items: LedgerEntry[] } {
    const total = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM entries").one().n;
    const items = this.sql
      .exec<LedgerEntry>(`SELECT ${ENTRY_COLUMNS} FROM entries ORDER BY seq DESC LIMIT ? OFFSET ?`, limit, offset)
      .toArray();
    return { total, items };
  }

  /** One change to storage: everything `change` writes commits together, or nothing does if it throws. */
  private write<T>(change: () => T): T {
    return this.ctx.storage.transactionSync(change);
  }

  /** Moves the balance and records the entry that says why. Runs inside the caller's write(). */
  private post(posting: Posting): LedgerEntry {
    const balanceAfter = this.state().balance_micros + posting.amountMicros;
    this.sql.exec("UPDATE state SET balance_micros = ? WHERE id = 1", balanceAfter);
    this.sql.exec(
      `INSERT INTO entries (id, type, amount_micros, balance_after_micros, call_id, description, waived_micros, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      posting.id,
      posting.type,
      posting.amountMicros,
      balanceAfter,
      posting.callId ?? null,
      posting.description ?? null,
      posting.waivedMicros ?? 0,
      posting.at,
    );
    return this.entry(posting.id)!;
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
    const row = this.sql
      .exec<{ terms: string; reservation: string }>("SELECT terms, reservation FROM active_calls WHERE call_id = ?", callId)
      .toArray()[0];
    return row ? { terms: JSON.parse(row.terms) as Terms, reservation: JSON.parse(row.reservation) as Reservation } : undefined;
  }

  private entry(id: string): LedgerEntry | undefined {
    return this.sql.exec<LedgerEntry>(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE id = ?`, id).toArray()[0];
  }
}

const isMoney = (micros: number) => Number.isSafeInteger(micros) && micros > 0;

/** A credit (sign 1) or debit (sign -1) as the entry it posts. */
const moneyPosting = (input: MoneyInput, sign: 1 | -1): Posting => ({
  id: input.entryId,
  type: input.type,
  amountMicros: sign * input.amountMicros,
  callId: input.callId ?? null,
  description: input.description,
  at: input.createdAt,
});

const admitted = (callId: string, terms: Terms, reservation: Reservation): Admission => ({
  ok: true,
  callId,
  maxCallSeconds: reservation.maxCallSeconds,
  ratePerMinuteMicros: terms.ratePerMinuteMicros,
});
