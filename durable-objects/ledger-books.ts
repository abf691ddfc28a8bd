// The AccountLedger's money: the balance and usage counters (table state) and the entries that
// move the balance (table entries), each unique by its id, so a credit, debit or refund sent
// twice posts once. Runs inside the AccountLedger's write(), which makes each change atomic.
import type { Books, Held, Posting } from "./call-ledger/call-ledger.ts";

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

export type RefundInput = { entryId: string; ofEntryId: string; type: string; description?: string | null; createdAt: string };

export type CreditResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "invalid_amount" };
export type RefundResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "nothing_to_refund" };
export type DebitResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "invalid_amount" | "insufficient_balance" };

type Balance = { balance_micros: number; cycle_seconds_used: number; pilot_seconds_used: number; waived_total_micros: number };

const ENTRY_COLUMNS = "id, type, amount_micros, balance_after_micros, call_id, description, waived_micros, created_at";

export class LedgerBooks implements Books {
  private readonly sql: SqlStorage;
  /** What the live calls hold (the call ledger's), set aside from the balance. */
  private readonly held: () => Held;

  constructor(sql: SqlStorage, held: () => Held) {
    this.sql = sql;
    this.held = held;
  }

  balance(): Balance {
    return this.sql
      .exec<Balance>("SELECT balance_micros, cycle_seconds_used, pilot_seconds_used, waived_total_micros FROM state WHERE id = 1")
      .one();
  }

  summary(): LedgerSummary {
    const balance = this.balance();
    const held = this.held();
    return { ...balance, available_micros: balance.balance_micros - held.reserved_micros, ports_in_use: held.calls };
  }

  /** Adds money (welcome credit, top-up, refund). Idempotent by entry id. */
  credit(input: MoneyInput): CreditResult {
    if (!isMoney(input.amountMicros)) return { ok: false, reason: "invalid_amount" };
    const existing = this.entry(input.entryId);
    if (existing) return { ok: true, entry: existing };
    return { ok: true, entry: this.post(moneyPosting(input, 1)) };
  }

  /** Takes money (analysis fee, plan fee, exchange purchase) only if the available balance covers it. Idempotent by entry id. */
  debit(input: MoneyInput): DebitResult {
    if (!isMoney(input.amountMicros)) return { ok: false, reason: "invalid_amount" };
    const existing = this.entry(input.entryId);
    if (existing) return { ok: true, entry: existing };
    if (this.summary().available_micros < input.amountMicros) return { ok: false, reason: "insufficient_balance" };
    return { ok: true, entry: this.post(moneyPosting(input, -1)) };
  }

  /**
   * Gives back exactly what a debit took (a failed analysis, a cancelled order): nothing when that
   * debit never happened, and once only (idempotent by the refund's entry id).
   */
  refund(input: RefundInput): RefundResult {
    const existing = this.entry(input.entryId);
    if (existing) return { ok: true, entry: existing };
    const original = this.entry(input.ofEntryId);
    if (!original || original.amount_micros >= 0) return { ok: false, reason: "nothing_to_refund" };
    const posting = { id: input.entryId, type: input.type, amountMicros: -original.amount_micros, at: input.createdAt };
    return { ok: true, entry: this.post({ ...posting, callId: original.call_id, description: input.description ?? null }) };
  }

  /** Moves the balance and records the entry that says why. */
  post(posting: Posting): LedgerEntry {
    const balanceAfter = this.balance().balance_micros + posting.amountMicros;
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

  /** Moves the usage counters (seconds; micro-dollars waived by the pilot). */
  count(cycleSeconds: number, pilotSeconds: number, waivedMicros: number): void {
    this.sql.exec(
      `UPDATE state SET cycle_seconds_used = cycle_seconds_used + ?, pilot_seconds_used = pilot_seconds_used + ?,
       waived_total_micros = waived_total_micros + ? WHERE id = 1`,
      cycleSeconds,
      pilotSeconds,
      waivedMicros,
    );
  }

  /** A new billing cycle: included minutes start again. */
  startCycle(): void {
    this.sql.exec("UPDATE state SET cycle_seconds_used = 0 WHERE id = 1");
  }

  /** Newest first. */
  listEntries(limit: number, offset: number): { total: number; items: LedgerEntry[] } {
    const total = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM entries").one().n;
    const items = this.sql
      .exec<LedgerEntry>(`SELECT ${ENTRY_COLUMNS} FROM entries ORDER BY seq DESC LIMIT ? OFFSET ?`, limit, offset)
      .toArray();
    return { total, items };
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
