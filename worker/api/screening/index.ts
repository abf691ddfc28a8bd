// Screening before answer (our extension of the published API): the rules, the do-not-originate
// list and the counts per rule.
import type { Api } from "../context.ts";
import { registerDoNotOriginate } from "./do-not-originate-routes.ts";
import { registerScreeningRules } from "./rule-routes.ts";

export function register(api: Api) {
  registerScreeningRules(api);
  registerDoNotOriginate(api);
}
