// The account's screening rules: stored as what it changed from the defaults (screening_settings),
// shown with every default filled in. A PUT replaces them whole (a rule left out returns to its
// defaults), is checked before anything is stored, and hands the ledger its new admission state.
import { and, eq } from "drizzle-orm";
import { destinations } from "../../../schema/network.ts";
import { RULE_NAMES, screeningSettings, withDefaults, type RuleName, type RuleSetting } from "../../../schema/screening.ts";
import { nowIso } from "../../lib/time.ts";
import { ruleDescription, type PutScreeningRules } from "../../resources/screening.ts";
import type { Services } from "../context.ts";
import { InvalidField } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import { syncAdmissionState } from "../trunk/admission-state.ts";

type StoredRules = Partial<Record<string, RuleSetting>>;

function rulesOut(stored: StoredRules | null | undefined, updatedAt: string | null) {
  const settings = withDefaults(stored);
  return {
    rules: Object.fromEntries(RULE_NAMES.map((rule) => [rule, { ...settings[rule], description: ruleDescription(rule) }])) as Record<
      RuleName,
      RuleSetting & { description: string }
    >,
    updated_at: updatedAt,
  };
}

export async function getScreeningRules(s: Services, principal: Principal) {
  const row = await s.db.select().from(screeningSettings).where(eq(screeningSettings.customerId, principal.customer.id)).get();
  return rulesOut(row?.rules, row?.updatedAt ?? null);
}

export async function putScreeningRules(s: Services, principal: Principal, input: PutScreeningRules) {
  const customerId = principal.customer.id;
  const stored: StoredRules = {};
  for (const rule of RULE_NAMES) {
    const given = input.rules[rule];
    if (given) stored[rule] = await settingOf(s, customerId, rule, given);
  }
  const now = nowIso();
  await s.db
    .insert(screeningSettings)
    .values({ customerId, rules: stored, updatedAt: now })
    .onConflictDoUpdate({ target: screeningSettings.customerId, set: { rules: stored, updatedAt: now } });
  await syncAdmissionState(s, customerId);
  return rulesOut(stored, now);
}

/** A rule as given, without its nulls (a null field takes its default); a divert's destination must be the account's. */
async function settingOf(s: Services, customerId: string, rule: RuleName, given: Record<string, unknown>): Promise<RuleSetting> {
  const setting = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null && v !== undefined)) as RuleSetting;
  const action = setting.action ?? withDefaults(null)[rule].action;
  if (action !== "divert") {
    delete setting.divert_destination_id;
    return setting;
  }
  const destinationId = setting.divert_destination_id;
  const found =
    destinationId &&
    (await s.db
      .select({ id: destinations.id })
      .from(destinations)
      .where(and(eq(destinations.id, destinationId), eq(destinations.customerId, customerId)))
      .get());
  if (!found) throw new InvalidField(["rules", rule, "divert_destination_id"], "divert destination not found on this account");
  return setting;
}
