// The screening operations the page uses (our extension of the API, /api/customer/screening/*):
// the rules with their defaults filled in, the do-not-originate list, and what the rules did.
import { useQuery } from "@tanstack/react-query";
import { apiError } from "../../api/errors.ts";
import { session } from "../../session/session.ts";
import type { RuleSetting } from "./rules.ts";

/** Every rule by name, defaults filled in (the API adds each rule's description, which the page does not send back). */
export type Rules = Record<string, RuleSetting>;
export type DnoNumber = { id: string; number: string; label: string | null; created_at: string };
export type DnoPage = { items: DnoNumber[]; total: number };
export type RuleCount = { rule: string; refused: number; diverted: number; flagged: number; last_at: string | null };

export const RULES_KEY = ["screening", "rules"] as const;
export const STATS_KEY = ["screening", "stats"] as const;
export const DNO_KEY = ["screening", "do-not-originate"] as const;

async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  const token = await session.freshToken();
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`/api/customer/screening${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401 && session.current().token) session.expired();
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw apiError(response, data);
  return data as T;
}

type RulesBody = { rules: Record<string, RuleSetting & { description?: string }>; updated_at: string | null };

/** The settings alone: the API's descriptions and nulls (a prefix or a destination unset) left out. */
const settingsOf = (body: RulesBody): Rules =>
  Object.fromEntries(
    Object.entries(body.rules).map(([name, rule]) => {
      const setting = Object.fromEntries(Object.entries(rule).filter(([key, value]) => key !== "description" && value !== null));
      return [name, setting as RuleSetting];
    }),
  );

export const readRules = async () => settingsOf(await send<RulesBody>("GET", "/rules"));
/** Every rule as set (a rule or field left out would go back to its default). */
export const saveRules = async (rules: Rules) => settingsOf(await send<RulesBody>("PUT", "/rules", { rules }));

export const readDno = (limit: number, offset: number) => send<DnoPage>("GET", `/do-not-originate?limit=${limit}&offset=${offset}`);
export const addDno = (body: { number: string; label?: string } | { numbers: string[] }) =>
  send<unknown>("POST", "/do-not-originate", body);
export const removeDno = (id: string) => send<null>("DELETE", `/do-not-originate/${encodeURIComponent(id)}`);

/** Calls each rule refused, diverted and flagged, by rule. */
export async function readStats(): Promise<Record<string, RuleCount>> {
  const body = await send<{ rules: RuleCount[] }>("GET", "/stats");
  return Object.fromEntries(body.rules.map((r) => [r.rule, r]));
}

export const useRules = () => useQuery({ queryKey: RULES_KEY, queryFn: readRules });
export const useStats = () => useQuery({ queryKey: STATS_KEY, queryFn: readStats });
