// AccountLedger: one instance per account (idFromName(account key)), the only writer of that
// account's money and concurrency. Balance, ports in use, cycle minutes, pilot use, active
// call reservations and ledger entries live in this object's own SQLite storage; every method
// runs alone, so no two requests can both take the last port or spend the last dollar.
// Outcomes cross the RPC boundary as values ({ok: false, reason}), never as exceptions.
import { DurableObject } from "cloudflare:workers";
import type { CallReportAnswer, MediaName } from "../schema/node-api.ts";
import type { AdmissionState } from "./call-ledger/admission.ts";
import {
  CallLedger,
  type AdmitCallInput,
  type AdmitCallResult,
  type AdmitOwnCallInput,
  type CallRecordMessage,
  type LedgerCallCopy,
  type LiveCall,
  type PlacedCallCaps,
  type PlacedCallVerdict,
  type ReportInput,
} from "./call-ledger/call-ledger.ts";
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
  // The call ledger: live calls belong to a node under a lease, hold credit in slices, and reach
  // D1 through the outbox (flushed to the call-records queue by the alarm).
  (sql) =>
    sql.exec(`
      ALTER TABLE active_calls ADD COLUMN node_id TEXT;
      ALTER TABLE active_calls ADD COLUMN boot_id TEXT;
      ALTER TABLE active_calls ADD COLUMN status TEXT NOT NULL DEFAULT 'ringing';
      ALTER TABLE active_calls ADD COLUMN answered_at TEXT;
      ALTER TABLE active_calls ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE active_calls ADD COLUMN record TEXT;
      ALTER TABLE settled_calls ADD COLUMN end_reason TEXT;
      CREATE TABLE node_leases (
        node_id TEXT PRIMARY KEY,
        boot_id TEXT NOT NULL,
        renewed_at INTEGER NOT NULL,
        lease_ms INTEGER NOT NULL
      );
      CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);
      CREATE TABLE admission_state (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL, synced_at TEXT NOT NULL);
    `),
  // Calls the platform places for the account (test, verification, web dialer), counted per UTC day for its caps.
  (sql) =>
    sql.exec("CREATE TABLE placed_usage (day TEXT PRIMARY KEY, calls INTEGER NOT NULL DEFAULT 0, seconds INTEGER NOT NULL DEFAULT 0)"),
  // Calls ended lately (refused ones too), with their record and end: the API reads a call from here
  // while they are on their way to D1 (CallLedger.copyOf); forgotten after ENDED_RECORDS_KEEP_MS.
  (sql) =>
    sql.exec(`
      CREATE TABLE ended_records (call_id TEXT PRIMARY KEY, record TEXT NOT NULL, end_message TEXT, ended_ms INTEGER NOT NULL);
      CREATE INDEX ended_records_by_time ON ended_records (ended_ms);
    `),
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

/** The queue the outbox is flushed to (worker/queues/call-records.ts writes it to D1). */
type LedgerEnv = { CALL_RECORDS_QUEUE?: Queue<CallRecordMessage> };

/** Messages sent to the queue at once: the queue takes 100 a batch and 256 KB in all. */
const FLUSH_MESSAGES = 100;
const FLUSH_BYTES = 200_000;
/** How long a failed flush waits before the alarm tries again. */
const FLUSH_RETRY_MS = 1_000;
/** New outbox messages wait this long for others, so a busy account flushes a batch, not each call. */
const FLUSH_DELAY_MS = 100;

export class AccountLedger extends DurableObject {
  private readonly sql: SqlStorage;
  private readonly calls: CallLedger;
  /** When the alarm is set for, as this instance last set or read it (undefined: not known yet). */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Synchronous, so no request reaches the object before its storage is at the current version.
    migrate(ctx.storage, LEDGER_MIGRATIONS);
    this.calls = new CallLedger(this.sql, {
      balance: () => this.state(),
      held: () => this.held(),
      post: (posting) => this.post(posting).balance_after_micros,
      count: (cycleSeconds, pilotSeconds, waivedMicros) =>
        this.sql.exec(
          `UPDATE state SET cycle_seconds_used = cycle_seconds_used + ?, pilot_seconds_used = pilot_seconds_used + ?,
           waived_total_micros = waived_total_micros + ? WHERE id = 1`,
          cycleSeconds,
          pilotSeconds,
          waivedMicros,
        ),
    });
  }

  // ---- The call ledger (call-ledger/call-ledger.ts) ----

  /** The account's admission state, written through by the Worker after every change in D1 (null: the account is gone). */
  loadAdmissionState(state: AdmissionState | null, at: string): void {
    this.write(() => this.calls.loadState(state, at));
  }

  /** Admits or refuses a call from the admission state alone; the record goes out through the outbox. */
  async admitCall(input: AdmitCallInput): Promise<AdmitCallResult> {
    const result = this.write(() => this.calls.admit(input));
    await this.schedule();
    return result;
  }

  /** Admits a call the platform places itself (test call, web dialer): CallLedger.admitOwnCall. */
  async admitOwnCall(input: AdmitOwnCallInput): Promise<AdmitCallResult> {
    const result = this.write(() => this.calls.admitOwnCall(input));
    await this.schedule();
    return result;
  }

  /** Counts a call the platform is asked to place (a test call, as it is created) against the day's caps. */
  takePlacedCall(input: { now: string; caps: PlacedCallCaps }): PlacedCallVerdict {
    return this.write(() => this.calls.placed.take(input.now, input.caps));
  }

  /** A node's batch of call events and its heartbeat: applied once each, answered with grants. */
  async report(input: ReportInput): Promise<CallReportAnswer> {
    const answer = this.write(() => this.calls.report(input));
    await this.schedule();
    return answer;
  }

  liveCalls(): LiveCall[] {
    return this.calls.liveCalls();
  }

  liveCall(callId: string): LiveCall | null {
    return this.calls.liveCalls().find((call) => call.callId === callId) ?? null;
  }

  /** A file of the call stored before its record reached D1: what it changes follows the record through the outbox. */
  async noteMedia(input: { callId: string; name: MediaName; key: string }): Promise<void> {
    this.write(() => this.calls.noteMedia(input.callId, input.name, input.key));
    await this.schedule();
  }

  knowsCall(callId: string): boolean {
    return this.calls.knows(callId);
  }

  /** What the ledger knows of a call it carries or ended lately, as the messages that bring D1 to it (null: nothing). */
  callCopy(callId: string): LedgerCallCopy | null {
    return this.calls.copyOf(callId);
  }

  /** Ends the calls of nodes whose lease lapsed, and sends the outbox to the call-records queue. */
  override async alarm(): Promise<void> {
    // The alarm that fires is spent: the next one is set by schedule() below.
    this.alarmAt = null;
    this.write(() => {
      this.calls.expireLeases(Date.now());
      this.calls.pruneEnded(Date.now());
    });
    const flushed = await this.flush();
    await this.schedule(flushed ? undefined : Date.now() + FLUSH_RETRY_MS);
  }

  /** Sends what waits in the outbox, oldest first; false when the queue refused. */
  private async flush(): Promise<boolean> {
    const queue = (this.env as LedgerEnv).CALL_RECORDS_QUEUE;
    if (!queue) return true;
    for (let rows = this.calls.outbox.oldest(FLUSH_MESSAGES); rows.length > 0; rows = this.calls.outbox.oldest(FLUSH_MESSAGES)) {
      const batch: typeof rows = [];
      let bytes = 0;
      for (const row of rows) {
        if (batch.length > 0 && bytes + row.body.length > FLUSH_BYTES) break;
        batch.push(row);
        bytes += row.body.length;
      }
      try {
        await queue.sendBatch(batch.map((row) => ({ body: JSON.parse(row.body) as CallRecordMessage, contentType: "json" })));
      } catch (err) {
        console.error("call records: the queue refused a batch, retrying", err instanceof Error ? err.message : String(err));
        return false;
      }
      this.calls.outbox.sent(batch[batch.length - 1]!.seq);
    }
    return true;
  }

  /** The alarm at the earliest of: shortly when the outbox holds messages, a retry, the next lease to lapse. */
  private async schedule(retryAt?: number): Promise<void> {
    const candidates = [
      retryAt,
      this.calls.outbox.hasMessages() && retryAt === undefined ? Date.now() + FLUSH_DELAY_MS : undefined,
      this.calls.nextLeaseDeadline() ?? undefined,
    ];
    const next = Math.min(...candidates.filter((t): t is number => t !== undefined));
    if (!Number.isFinite(next)) return;
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= next) return;
    this.alarmAt = next;
    await this.ctx.storage.setAlarm(next);
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
