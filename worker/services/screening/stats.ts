// How many calls each screening rule refused, diverted and flagged, as the account's ledger counted
// them at admission (every rule listed, zero where it matched nothing).
import { RULE_NAMES } from "../../../schema/screening.ts";
import type { Services } from "../context.ts";
import type { Principal } from "../identity/principal.ts";

export async function screeningStats(s: Services, principal: Principal) {
  const counted = new Map((await s.ledger(principal.customer.id).screeningStats()).map((c) => [c.rule, c]));
  return {
    rules: RULE_NAMES.map((rule) => {
      const c = counted.get(rule);
      return { rule, refused: c?.refused ?? 0, diverted: c?.diverted ?? 0, flagged: c?.flagged ?? 0, last_at: c?.last_at ?? null };
    }),
  };
}
