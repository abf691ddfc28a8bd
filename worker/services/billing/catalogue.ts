import { asc, eq } from "drizzle-orm";
import { aiTiers, plans } from "../../../schema/catalogue.ts";
import { toUsd } from "../../lib/money.ts";
import type { AiTier, Plan } from "../../resources/catalogue.ts";
import { customers } from "../../../schema/identity.ts";
import { nowIso } from "../../lib/time.ts";
import { syncAdmissionState } from "../trunk/admission-state.ts";
import type { Services } from "../context.ts";
import { InvalidField } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";

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

/** The tiers with the account's marked `current`. */
export async function listAiTiersOf(s: Services, principal: Principal): Promise<(AiTier & { current: boolean })[]> {
  return (await listAiTiers(s)).map((tier) => ({ ...tier, current: tier.mode === principal.customer.aiMode }));
}

/** Chooses the account's tier: calls analysed from now on use it; running calls keep theirs. */
export async function setAiMode(s: Services, principal: Principal, mode: string): Promise<AiTier & { current: boolean }> {
  const tier = (await listAiTiers(s)).find((t) => t.mode === mode);
  if (!tier) throw new InvalidField("mode", `mode must be one of the tiers of GET /customer/ai-modes`, "enum");
  await s.db.update(customers).set({ aiMode: tier.mode, updatedAt: nowIso() }).where(eq(customers.id, principal.customer.id));
  await syncAdmissionState(s, principal.customer.id);
  return { ...tier, current: true };
}
