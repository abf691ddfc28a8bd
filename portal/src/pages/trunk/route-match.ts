// Which destination a dialed number goes to, as call admission decides it
// (durable-objects/call-admission.ts chooseRoute, fed by worker/services/trunk/admission-state.ts):
// a whitelist entry's own destination first; else the enabled routing rules whose prefix begins
// the number's digits (the "+" ignored on both sides), the longest prefix first, then the lowest
// priority value; else the default destination. A rule whose destination is gone is skipped.
// Behind an entry with a dial prefix, the number is matched without that prefix.
import type { Schemas } from "../../api/client.ts";

type Destination = Schemas["Destination"];
type RoutingRule = Schemas["RoutingRule"];
type IpEntry = Schemas["IpEntry"];

/** The number as admission reads it: digits, * and # only, without a leading + (worker/lib/numbers.ts digitsOf). */
export const digitsOf = (raw: string) => raw.trim().replace(/[^0-9*#]/g, "");

export type RouteAnswer = {
  /** The digits the rules are matched against. */
  digits: string;
  /** The entry's dial prefix taken off the number, if any. */
  strippedPrefix: string | null;
  /** The entry's own destination, which takes every call of the entry before any rule. */
  entryDestination: Destination | null;
  /** The enabled rules that match, in the order admission tries them: the first takes the call. */
  matches: { rule: RoutingRule; destination: Destination }[];
  /** Rules whose prefix matches but that admission does not consider (disabled, or destination gone). */
  ignored: { rule: RoutingRule; why: string }[];
  /** The default destination, which takes the call when nothing above does. */
  fallback: Destination | null;
  /** Where the call goes: null when nowhere (refused: no route). */
  winner: { destination: Destination; by: "whitelist_entry" | "routing_rule" | "default"; prefix: string | null } | null;
  /** The entry cannot take this number: it starts with another sub-customer's prefix or none. */
  entryRefuses: string | null;
};

const byRuleOrder = (a: RoutingRule, b: RoutingRule) =>
  digitsOf(b.prefix).length - digitsOf(a.prefix).length ||
  a.priority - b.priority ||
  // Equal length and priority: admission keeps its store's order; the earlier rule is shown first.
  a.created_at.localeCompare(b.created_at);

export function routeNumber(
  number: string,
  rules: RoutingRule[],
  destinations: Destination[],
  entry: Pick<IpEntry, "dial_prefix" | "destination_id"> | null = null,
): RouteAnswer {
  const byId = (id: string | null | undefined) => (id ? destinations.find((d) => d.id === id) : undefined);
  let digits = digitsOf(number);
  let strippedPrefix: string | null = null;
  let entryRefuses: string | null = null;
  if (entry?.dial_prefix) {
    if (digits.startsWith(entry.dial_prefix)) {
      strippedPrefix = entry.dial_prefix;
      digits = digits.slice(entry.dial_prefix.length);
    } else {
      entryRefuses = `Calls through this entry start with its dial prefix ${entry.dial_prefix}; this number does not.`;
    }
  }
  const entryDestination = byId(entry?.destination_id) ?? null;
  const prefixed = rules.filter((rule) => digits.startsWith(digitsOf(rule.prefix))).sort(byRuleOrder);
  const matches: RouteAnswer["matches"] = [];
  const ignored: RouteAnswer["ignored"] = [];
  for (const rule of prefixed) {
    const destination = byId(rule.destination_id);
    if (!rule.enabled) ignored.push({ rule, why: "disabled" });
    else if (!destination) ignored.push({ rule, why: "its destination is gone" });
    else matches.push({ rule, destination });
  }
  const fallback = destinations.find((d) => d.is_default) ?? null;
  let winner: RouteAnswer["winner"] = null;
  if (entryRefuses) winner = null;
  else if (entryDestination) winner = { destination: entryDestination, by: "whitelist_entry", prefix: null };
  else if (matches[0]) winner = { destination: matches[0].destination, by: "routing_rule", prefix: matches[0].rule.prefix };
  else if (fallback) winner = { destination: fallback, by: "default", prefix: null };
  return { digits, strippedPrefix, entryDestination, matches, ignored, fallback, winner, entryRefuses };
}
