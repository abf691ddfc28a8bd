// What an account spent, read from its AccountLedger: every charge (calls, analysis fees, plan
// fees, purchases) less refunds, by the UTC day the entry was posted. Credits (welcome credit,
// top-ups) are not spend.
import type { LedgerEntry } from "../../../durable-objects/account-ledger.ts";
import type { Services } from "../context.ts";

const PAGE = 500;
/** A charge may be posted a little after the instant it carries (a call's end): walk this far past `from`. */
const LATE_POSTING_MS = 86_400_000;

/** Entries that are money taken for the service (refunds give some back; taxes are not spend). */
export const isCharge = (e: LedgerEntry) => (e.amount_micros < 0 && e.type !== "tax") || e.type === "refund";

/**
 * The account's ledger entries dated in [from, to), newest first. Entries are appended in about
 * time order, so the newest-first walk stops a day's worth of entries past `from`.
 */
export async function ledgerEntriesIn(s: Services, customerId: string, from: string | null, to: string | null): Promise<LedgerEntry[]> {
  const ledger = s.ledger(customerId);
  const found: LedgerEntry[] = [];
  const stopBefore = from === null ? null : new Date(Date.parse(from) - LATE_POSTING_MS).toISOString();
  for (let offset = 0; ; offset += PAGE) {
    const { items } = await ledger.listEntries(PAGE, offset);
    for (const entry of items) {
      if (stopBefore !== null && entry.created_at < stopBefore) return found;
      if ((from === null || entry.created_at >= from) && (to === null || entry.created_at < to)) found.push(entry);
    }
    if (items.length < PAGE) return found;
  }
}

/** Spend in micro-dollars per UTC date ("2026-11-26") of the entries dated in [from, to). */
export async function spendByDay(s: Services, customerId: string, from: string | null, to: string | null): Promise<Map<string, number>> {
  const byDay = new Map<string, number>();
  for (const entry of await ledgerEntriesIn(s, customerId, from, to)) {
    if (!isCharge(entry)) continue;
    const day = entry.created_at.slice(0, 10);
    byDay.set(day, (byDay.get(day) ?? 0) - entry.amount_micros);
  }
  return byDay;
}

export const totalOf = (byDay: Map<string, number>) => [...byDay.values()].reduce((sum, v) => sum + v, 0);
