// The screening operations the page uses (our extension of the API, /api/customer/screening/*):
// the rules with their defaults filled in, the do-not-originate list, and what the rules did.
import { useQuery } from "@tanstack/react-query";
import { api, must, type Schemas } from "../../api/client.ts";
import type { RuleSetting } from "./rules.ts";

/** Every rule by name, defaults filled in. */
export type Rules = Record<string, RuleSetting>;
export type DnoNumber = Schemas["DoNotOriginateNumber"];
export type RuleCount = Schemas["ScreeningStats"]["rules"][number];

export const RULES_KEY = ["screening", "rules"] as const;
export const STATS_KEY = ["screening", "stats"] as const;
export const DNO_KEY = ["screening", "do-not-originate"] as const;

/** The settings alone: each rule's description (the API's, for developers) and its unset nulls left out. */
const settingsOf = (body: Schemas["ScreeningRules"]): Rules =>
  Object.fromEntries(
    Object.entries(body.rules).map(([name, rule]) => {
      const setting = Object.fromEntries(Object.entries(rule).filter(([key, value]) => key !== "description" && value !== null));
      return [name, setting as RuleSetting];
    }),
  );

export const readRules = async () => settingsOf(await must(api.GET("/customer/screening/rules")));

/** Every rule as set: PUT replaces the settings, so a rule left out would go back to its defaults. */
export const saveRules = async (rules: Rules) =>
  settingsOf(await must(api.PUT("/customer/screening/rules", { body: { rules } as Schemas["PutScreeningRules"] })));

export const readDno = (limit: number, offset: number) =>
  must(api.GET("/customer/screening/do-not-originate", { params: { query: { limit, offset } } }));
export const addDno = (body: Schemas["AddDoNotOriginate"]) => must(api.POST("/customer/screening/do-not-originate", { body }));
export const removeDno = (id: string) =>
  must(api.DELETE("/customer/screening/do-not-originate/{entry_id}", { params: { path: { entry_id: id } } }));

/** Calls each rule refused, diverted and flagged, by rule. */
export async function readStats(): Promise<Record<string, RuleCount>> {
  const body = await must(api.GET("/customer/screening/stats"));
  return Object.fromEntries(body.rules.map((r) => [r.rule, r]));
}

export const useRules = () => useQuery({ queryKey: RULES_KEY, queryFn: readRules });
export const useStats = () => useQuery({ queryKey: STATS_KEY, queryFn: readStats });
