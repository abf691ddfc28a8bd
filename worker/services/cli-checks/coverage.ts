// The numbers that can take a CLI check now: the platform's own (CLI_NUMBERS) and the live hosted
// numbers; and the one a new check calls in a country (the least busy, so concurrent checks to one
// number stay rare and an arrival is matched to its check without doubt).
import { and, eq, inArray, sql } from "drizzle-orm";
import { cliChecks, hostedNumbers } from "../../../schema/cli-checks.ts";
import { toMicros, toUsd } from "../../lib/money.ts";
import type { Services } from "../context.ts";

export type HeldNumber = { country: string; number: string; hostedNumberId: string | null; hostedBy: string | null };

/** Every number that can take a check now, optionally in one country. */
export async function heldNumbers(s: Services, country?: string): Promise<HeldNumber[]> {
  const platform = s.config.CLI_NUMBERS.filter((n) => !country || n.country === country).map((n) => ({
    ...n,
    hostedNumberId: null,
    hostedBy: null,
  }));
  const conditions = [eq(hostedNumbers.status, "live")];
  if (country) conditions.push(eq(hostedNumbers.country, country));
  const hosted = await s.db
    .select({ id: hostedNumbers.id, number: hostedNumbers.number, country: hostedNumbers.country, customerId: hostedNumbers.customerId })
    .from(hostedNumbers)
    .where(and(...conditions));
  return [...platform, ...hosted.map((h) => ({ country: h.country, number: h.number, hostedNumberId: h.id, hostedBy: h.customerId }))];
}

export const checkFeeMicros = (s: Services) => toMicros(s.config.CLI_CHECK_FEE_USD);

export async function coverage(s: Services) {
  const byCountry = new Map<string, { country: string; numbers: number; platform_numbers: number; hosted_numbers: number }>();
  for (const held of await heldNumbers(s)) {
    const entry = byCountry.get(held.country) ?? { country: held.country, numbers: 0, platform_numbers: 0, hosted_numbers: 0 };
    entry.numbers += 1;
    if (held.hostedNumberId) entry.hosted_numbers += 1;
    else entry.platform_numbers += 1;
    byCountry.set(held.country, entry);
  }
  return {
    countries: [...byCountry.values()].sort((a, b) => a.country.localeCompare(b.country)),
    fee_usd: toUsd(checkFeeMicros(s)),
    hosted_share_percent: s.config.HOSTED_NUMBER_SHARE_PERCENT,
  };
}

/** The number a new check in `country` calls: of those held there, the one with fewest checks in flight; null when none. */
export async function numberForCheck(s: Services, country: string): Promise<HeldNumber | null> {
  const candidates = await heldNumbers(s, country);
  if (candidates.length === 0) return null;
  const busy = await s.db
    .select({ number: cliChecks.number, n: sql<number>`count(*)` })
    .from(cliChecks)
    .where(
      and(
        eq(cliChecks.status, "placing"),
        inArray(
          cliChecks.number,
          candidates.map((c) => c.number),
        ),
      ),
    )
    .groupBy(cliChecks.number);
  const load = new Map(busy.map((b) => [b.number, b.n]));
  const least = Math.min(...candidates.map((c) => load.get(c.number) ?? 0));
  const idle = candidates.filter((c) => (load.get(c.number) ?? 0) === least);
  return idle[Math.floor(Math.random() * idle.length)]!;
}
