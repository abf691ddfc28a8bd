// What the screening keeps in the ledger's storage: how many calls each rule refused, diverted or
// flagged (table screening_counts), and when a velocity rule's breach for a key was last alerted
// (table screening_breaches), so a breach is alerted once an hour however many calls break it.
import type { ScreeningAction, ScreeningFlag } from "../../../schema/screening.ts";

const HOUR_MS = 3_600_000;

export const OUTCOME_OF = { refuse: "refused", divert: "diverted", flag: "flagged" } as const satisfies Partial<
  Record<ScreeningAction, string>
>;
export type ScreeningOutcome = (typeof OUTCOME_OF)[keyof typeof OUTCOME_OF];

/** One rule's counts, as GET /customer/screening/stats shows them. */
export type RuleCounts = { rule: string; refused: number; diverted: number; flagged: number; last_at: string | null };

export class ScreeningTally {
  private readonly sql: SqlStorage;
  /** When each breach (rule and key) was last alerted, as read or written by this instance. */
  private readonly alerted = new Map<string, number>();

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** Each flag counts its call once under its rule and action. */
  count(flags: ScreeningFlag[], at: string): void {
    for (const flag of flags) {
      if (flag.action === "off") continue;
      this.sql.exec(
        `INSERT INTO screening_counts (rule, outcome, calls, last_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (rule, outcome) DO UPDATE SET calls = calls + 1, last_at = excluded.last_at`,
        flag.rule,
        OUTCOME_OF[flag.action],
        at,
      );
    }
  }

  /** Whether the breach of `rule` for `key` is new (none alerted within the hour); a new one is noted as alerted now. */
  firstBreach(rule: string, key: string, nowMs: number): boolean {
    const id = `${rule}|${key}`;
    let last = this.alerted.get(id);
    if (last === undefined) {
      last = this.sql
        .exec<{ alerted_ms: number }>("SELECT alerted_ms FROM screening_breaches WHERE rule = ? AND key = ?", rule, key)
        .toArray()[0]?.alerted_ms;
    }
    if (last !== undefined && nowMs - last < HOUR_MS) {
      this.alerted.set(id, last);
      return false;
    }
    this.sql.exec("DELETE FROM screening_breaches WHERE alerted_ms <= ?", nowMs - HOUR_MS);
    this.sql.exec(
      "INSERT INTO screening_breaches (rule, key, alerted_ms) VALUES (?, ?, ?) ON CONFLICT (rule, key) DO UPDATE SET alerted_ms = excluded.alerted_ms",
      rule,
      key,
      nowMs,
    );
    this.alerted.set(id, nowMs);
    return true;
  }

  stats(): RuleCounts[] {
    const rows = this.sql
      .exec<{ rule: string; outcome: ScreeningOutcome; calls: number; last_at: string }>(
        "SELECT rule, outcome, calls, last_at FROM screening_counts",
      )
      .toArray();
    const byRule = new Map<string, RuleCounts>();
    for (const row of rows) {
      const counts = byRule.get(row.rule) ?? { rule: row.rule, refused: 0, diverted: 0, flagged: 0, last_at: null };
      counts[row.outcome] = row.calls;
      if (!counts.last_at || row.last_at > counts.last_at) counts.last_at = row.last_at;
      byRule.set(row.rule, counts);
    }
    return [...byRule.values()];
  }
}
