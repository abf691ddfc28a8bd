// The AccountLedger's storage layout, one migration step per schema version: its money (state,
// entries), the call ledger's tables (active_calls, settled_calls, node_leases, outbox,
// admission_state, placed_usage, ended_records, screening_counts, screening_breaches) and the
// per-account sequences. Run by the AccountLedger's constructor before any request reaches it.
import { createSequences } from "./sequences.ts";

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
  // Screening (call-ledger/screening/tally.ts): calls each rule refused, diverted or flagged; when a
  // velocity rule's breach of a key was last alerted.
  (sql) =>
    sql.exec(`
      CREATE TABLE screening_counts (rule TEXT NOT NULL, outcome TEXT NOT NULL, calls INTEGER NOT NULL, last_at TEXT NOT NULL, PRIMARY KEY (rule, outcome));
      CREATE TABLE screening_breaches (rule TEXT NOT NULL, key TEXT NOT NULL, alerted_ms INTEGER NOT NULL, PRIMARY KEY (rule, key));
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
