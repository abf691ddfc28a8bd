// Per-account numbering (case_no, ticket_no) kept in the account's AccountLedger Durable Object:
// it runs one call at a time, so each number is handed out once and the next one follows it, with
// no read-then-write race such as D1's MAX()+1 across concurrent requests would have.

/** Ledger migration step: the table of named counters. */
export function createSequences(sql: SqlStorage): void {
  sql.exec("CREATE TABLE IF NOT EXISTS sequences (name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
}

/** The counter's next value (1 for a counter never used), stored before it is returned. */
export function nextNumber(sql: SqlStorage, name: string): number {
  const row = sql
    .exec<{ value: number }>(
      "INSERT INTO sequences (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value",
      name,
    )
    .one();
  return row.value;
}
