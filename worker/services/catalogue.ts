import { asc, eq } from "drizzle-orm";
import { aiTiers, plans } from "../../schema/catalogue.ts";
import { toUsd } from "../lib/money.ts";
import type { AiTier, Plan } from "../resources/catalogue.ts";
import type { Services } from "./context.ts";

type PlanRow = typeof plans.$inferSelect;

export const planOut = (row: PlanRow): Plan => ({
  code: row.code,
  name: row.name,
  monthly_fee: toUsd(row.monthlyFeeMicros),
  ports: row.ports,
  included_minutes: row.includedMinutes,
  per_minute_rate: toUsd(row.perMinuteRateMicros),
  min_billable_seconds: row.minBillableSeconds,
  active: row.active,
  description: row.description,
});

export async function listPlans({ db }: Services): Promise<Plan[]> {
  const rows = await db.select().from(plans).where(eq(plans.active, true)).orderBy(asc(plans.sortOrder));
  return rows.map(planOut);
}

export async function findPlan({ db }: Pick<Services, "db">, code: string): Promise<PlanRow | undefined> {
  return db.select().from(plans).where(eq(plans.code, code)).get();
}

/** Only names and prices leave the service, never the provider or model behind a tier. */
export async function listAiTiers({ db }: Services): Promise<AiTier[]> {
  const rows = await db.select().from(aiTiers).where(eq(aiTiers.active, true)).orderBy(asc(aiTiers.sortOrder));
  return rows.map((row) => ({ mode: row.mode, analysis_fee_per_call: toUsd(row.analysisFeeMicros) }));
}
