// GET /customer/dashboard and GET /customer/stats: the account's calls (D1) counted by UTC
// calendar day, risk and dialled country, and its spend (the AccountLedger).
import { and, count, desc, eq, gte, isNotNull, lt, sql, type SQL } from "drizzle-orm";
import { calls } from "../../../schema/calls.ts";
import { toUsd } from "../../lib/money.ts";
import { portsOf } from "../accounts/accounts.ts";
import { verdictExtrasOf } from "./records.ts";
import { windowStart } from "./search.ts";
import { callOut } from "./calls.ts";
import { findPlan } from "../billing/catalogue.ts";
import type { Services } from "../context.ts";
import { countryOfIso, dialledCountry, type DialledCountry } from "../placed-calls/dialled-country.ts";
import type { Principal } from "../identity/principal.ts";
import { spendByDay, totalOf } from "../billing/spend.ts";

const DAY_MS = 86_400_000;
/** Probability from which a verdict is high risk (the spec's dashboard, known-values.md). */
export const HIGH_RISK = 70;
const BUCKETS = [
  { bucket: "0-29", min: 0, max: 29 },
  { bucket: "30-69", min: 30, max: 69 },
  { bucket: "70-100", min: 70, max: 100 },
] as const;
const RECENT_HIGH_RISK = 10;

const round2 = (n: number) => Math.round(n * 100) / 100;
const minutesOf = (billsec: number | null) => round2((billsec ?? 0) / 60);
const day = sql<string>`substr(${calls.startedAt}, 1, 10)`;

/** Every UTC date from `from` to today, oldest first. */
function datesOf(from: string, now: number): string[] {
  const dates: string[] = [];
  for (let t = Date.parse(from); t <= now; t += DAY_MS) dates.push(new Date(t).toISOString().slice(0, 10));
  return dates;
}

export async function dashboardOf(s: Services, { customer }: Principal, { days }: { days: number }) {
  const now = Date.now();
  const from = windowStart(days, now);
  const to = new Date(now).toISOString();
  const today = windowStart(1, now);
  const inWindow = and(eq(calls.customerId, customer.id), gte(calls.startedAt, from));
  const highRisk = sql<number>`sum(case when ${calls.probability} >= ${HIGH_RISK} then 1 else 0 end)`;
  const [perDay, riskRows, countryRows, recentRows, spend, ledger, plan, ports] = await Promise.all([
    s.db
      .select({ date: day, calls: count(), high_risk: highRisk, billsec: sql<number>`sum(${calls.billsec})` })
      .from(calls)
      .where(inWindow)
      .groupBy(day),
    s.db
      .select({ probability: calls.probability, n: count() })
      .from(calls)
      .where(and(inWindow, isNotNull(calls.probability)))
      .groupBy(calls.probability),
    s.db
      .select({ destCountry: calls.destCountry, dialed: calls.dialed, n: count() })
      .from(calls)
      .where(inWindow)
      .groupBy(calls.destCountry, calls.dialed),
    s.db
      .select()
      .from(calls)
      .where(and(inWindow, gte(calls.probability, HIGH_RISK)))
      .orderBy(desc(calls.startedAt))
      .limit(RECENT_HIGH_RISK),
    spendByDay(s, customer.id, from, null),
    s.ledger(customer.id).summary(),
    findPlan(s, customer.planCode),
    portsOf(s.db, customer),
  ]);
  const byDate = new Map(perDay.map((r) => [r.date, r]));
  const analysed = riskRows.reduce((sum, r) => sum + r.n, 0);
  const highRiskCount = riskRows.filter((r) => r.probability! >= HIGH_RISK).reduce((sum, r) => sum + r.n, 0);
  const verdicts = recentRows.length
    ? await verdictExtrasOf(
        s.db,
        customer.id,
        recentRows.map((r) => r.id),
      )
    : new Map();
  return {
    days,
    from,
    to,
    calls_today: byDate.get(today.slice(0, 10))?.calls ?? 0,
    calls_period: perDay.reduce((sum, r) => sum + r.calls, 0),
    minutes_period: minutesOf(perDay.reduce((sum, r) => sum + (r.billsec ?? 0), 0)),
    spend_period: toUsd(totalOf(spend)),
    high_risk_pct: analysed ? round2((100 * highRiskCount) / analysed) : 0,
    risk_distribution: BUCKETS.map(({ bucket, min, max }) => ({
      bucket,
      count: riskRows.filter((r) => r.probability! >= min && r.probability! <= max).reduce((sum, r) => sum + r.n, 0),
    })),
    calls_per_day: datesOf(from, now).map((date) => ({
      date,
      calls: byDate.get(date)?.calls ?? 0,
      high_risk: Number(byDate.get(date)?.high_risk ?? 0),
    })),
    spend_per_day: datesOf(from, now).map((date) => ({ date, spend: toUsd(spend.get(date) ?? 0) })),
    calls_by_country: byCountry(countryRows),
    recent_high_risk: recentRows.map((row) => callOut(row, verdicts.get(row.id) ?? null)),
    balance: toUsd(ledger.balance_micros),
    plan: {
      code: customer.planCode,
      name: plan?.name ?? customer.planCode,
      ports,
      included_minutes: plan?.includedMinutes ?? null,
      renews_at: customer.planRenewsAt,
    },
    cycle_minutes_used: ledger.cycle_seconds_used / 60,
    active_calls: ledger.ports_in_use,
  };
}

/** Calls per country reached, the most called first (ties by name, Unknown last). */
function byCountry(rows: { destCountry: string | null; dialed: string | null; n: number }[]) {
  const counts = new Map<string, DialledCountry & { count: number }>();
  for (const row of rows) {
    const country = row.destCountry ? countryOfIso(row.destCountry) : dialledCountry(row.dialed);
    const key = country.code ?? "";
    const found = counts.get(key);
    if (found) found.count += row.n;
    else counts.set(key, { ...country, count: row.n });
  }
  const unknownLast = (c: DialledCountry) => (c.code === null ? 1 : 0);
  return [...counts.values()].sort((a, b) => b.count - a.count || unknownLast(a) - unknownLast(b) || a.name.localeCompare(b.name));
}

export async function statsOf(s: Services, { customer }: Principal, { from, to }: { from?: string; to?: string }) {
  const where: SQL[] = [eq(calls.customerId, customer.id)];
  if (from) where.push(gte(calls.startedAt, from));
  if (to) where.push(lt(calls.startedAt, to));
  const inRange = and(...where);
  const [[totals], categories, recommendations, spend] = await Promise.all([
    s.db
      .select({
        calls: count(),
        answered: count(calls.answeredAt),
        billsec: sql<number | null>`sum(${calls.billsec})`,
        avgProbability: sql<number | null>`avg(${calls.probability})`,
      })
      .from(calls)
      .where(inRange),
    s.db
      .select({ key: calls.category, n: count() })
      .from(calls)
      .where(and(inRange, isNotNull(calls.category)))
      .groupBy(calls.category),
    s.db
      .select({ key: calls.recommendation, n: count() })
      .from(calls)
      .where(and(inRange, isNotNull(calls.recommendation)))
      .groupBy(calls.recommendation),
    spendByDay(s, customer.id, from ?? null, to ?? null),
  ]);
  return {
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to }),
    calls: totals?.calls ?? 0,
    answered_calls: totals?.answered ?? 0,
    minutes: minutesOf(totals?.billsec ?? 0),
    spend: toUsd(totalOf(spend)),
    by_category: Object.fromEntries(categories.map((r) => [r.key, r.n])),
    by_recommendation: Object.fromEntries(recommendations.map((r) => [r.key, r.n])),
    avg_probability: totals?.avgProbability == null ? null : round2(totals.avgProbability),
  };
}
