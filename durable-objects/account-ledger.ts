// AccountLedger: one instance per account (idFromName(customer id)), the only writer of
// that account's money. Balance and ledger entries live in this object's own SQLite
// storage; every method runs alone, so no two requests can both spend the last dollar.
// Admission (ports, max_call_seconds) and call-end charging arrive with the control plane.
import { DurableObject } from "cloudflare:workers";

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
  cycle_seconds_used: number;
  pilot_seconds_used: number;
  waived_total_micros: number;
  ports_in_use: number;
};

export type CreditInput = {
  entryId: string;
  type: string;
  amountMicros: number;
  description?: string | null;
  createdAt: string;
};

/** Outcomes cross the RPC boundary as values, not exceptions: the caller decides what the client sees. */
export type CreditResult = { ok: true; entry: LedgerEntry } | { ok: false; reason: "invalid_amount" };

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
        waived_total_micros INTEGER NOT NULL DEFAULT 0,
        ports_in_use INTEGER NOT NULL DEFAULT 0
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
    `);
  }

  summary(): LedgerSummary {
    return this.sql
      .exec<LedgerSummary>(
        `SELECT balance_micros, cycle_seconds_used, pilot_seconds_used, waived_total_micros, ports_in_use
         FROM state WHERE id = 1`,
      )
      .one();
  }

  /** Adds money (signup credit, top-up, refund). Idempotent by entry id: a retry returns the first result. */
  credit(input: CreditInput): CreditResult {
    // Only a positive whole number of micro-dollars is money.
    if (!Number.isSafeInteger(input.amountMicros) || input.amountMicros <= 0) return { ok: false, reason: "invalid_amount" };
    const existing = this.entry(input.entryId);
    if (existing) return { ok: true, entry: existing };
    const balanceAfter = this.summary().balance_micros + input.amountMicros;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("UPDATE state SET balance_micros = ? WHERE id = 1", balanceAfter);
      this.sql.exec(
        `INSERT INTO entries (id, type, amount_micros, balance_after_micros, description, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
        input.entryId,
        input.type,
        input.amountMicros,
        balanceAfter,
        input.description ?? null,
        input.createdAt,
      );
    });
    return { ok: true, entry: this.entry(input.entryId)! };
  }

  /** Newest first. */
  listEntries(limit: number, offset: number): { total: number; items: LedgerEntry[] } {
    const total = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM entries").one().n;
    const items = this.sql
      .exec<LedgerEntry>(
        `SELECT id, type, amount_micros, balance_after_micros, call_id, description, waived_micros, created_at
         FROM entries ORDER BY seq DESC LIMIT ? OFFSET ?`,
        limit,
        offset,
      )
      .toArray();
    return { total, items };
  }

  private entry(id: string): LedgerEntry | undefined {
    return this.sql
      .exec<LedgerEntry>(
        `SELECT id, type, amount_micros, balance_after_micros, call_id, description, waived_micros, created_at
         FROM entries WHERE id = ?`,
        id,
      )
      .toArray()[0];
  }
}
