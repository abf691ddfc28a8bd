// Where an admitted call goes, case by case: a divert of the caller, else the whitelist entry's
// own destination, else the routing rule with the longest matching prefix (then the lowest
// priority), else the account's default destination, else nowhere.
import { describe, expect, it } from "vitest";
import { chooseRoute } from "../../../durable-objects/call-ledger/admission.ts";

type Routing = Parameters<typeof chooseRoute>[0];
type Destination = Routing["destinations"][number];
type Rule = Routing["rules"][number];
type Entry = Parameters<typeof chooseRoute>[1];

/** A destination with only what routing reads: its id (used as its label here) and whether it is the default. */
const destination = (id: string, isDefault = false) => ({ id, label: id, isDefault }) as Destination;

/** An enabled rule (admission reads only enabled ones, in priority order). */
const rule = (prefix: string, to: Destination | string, priority = 100) => {
  const destinationId = typeof to === "string" ? to : to.id;
  return { id: `rule-${prefix}-${destinationId}`, prefix, destinationId, priority, enabled: true } as Rule;
};

const entry = (destinationId: string | null = null) => ({ id: "entry", destinationId, dialPrefix: null }) as Entry;

type Case = {
  name: string;
  destinations: Destination[];
  rules?: Rule[];
  /** The whitelist entry's own destination. */
  entryTo?: string | null;
  number?: string;
  divertTo?: string | null;
  expected: { to: string; kind: "divert" | "whitelist_entry" | "routing_rule" | "default"; prefix: string | null } | null;
};

const A = destination("a");
const B = destination("b");
const C = destination("c");
const DEFAULT = destination("default", true);

const cases: Case[] = [
  {
    name: "a divert of the caller wins over the entry, the rules and the default",
    destinations: [A, B, C, DEFAULT],
    rules: [rule("4930", B)],
    entryTo: "c",
    number: "4930123456",
    divertTo: "a",
    expected: { to: "a", kind: "divert", prefix: null },
  },
  {
    name: "a divert to a destination the account does not hold is ignored",
    destinations: [A, DEFAULT],
    divertTo: "someone-elses",
    expected: { to: "default", kind: "default", prefix: null },
  },
  {
    name: "the whitelist entry's own destination wins over the rules and the default",
    destinations: [A, B, DEFAULT],
    rules: [rule("4930", B)],
    entryTo: "a",
    number: "4930123456",
    expected: { to: "a", kind: "whitelist_entry", prefix: null },
  },
  {
    name: "an entry's destination the account does not hold is passed over for the rules",
    destinations: [B, DEFAULT],
    rules: [rule("49", B)],
    entryTo: "gone",
    number: "4930123456",
    expected: { to: "b", kind: "routing_rule", prefix: "49" },
  },
  {
    name: "the longest matching prefix wins, whatever the priorities",
    destinations: [A, B, DEFAULT],
    rules: [rule("49", A, 1), rule("4930", B, 900)],
    number: "4930123456",
    expected: { to: "b", kind: "routing_rule", prefix: "4930" },
  },
  {
    name: "among prefixes of equal length the lowest priority wins",
    destinations: [A, B, DEFAULT],
    rules: [rule("4930", A, 200), rule("4930", B, 50)],
    number: "4930123456",
    expected: { to: "b", kind: "routing_rule", prefix: "4930" },
  },
  {
    name: "a rule's leading + and the number's + and spacing do not matter",
    destinations: [A, DEFAULT],
    rules: [rule("+4930", A)],
    number: "+49 30 123-456",
    expected: { to: "a", kind: "routing_rule", prefix: "+4930" },
  },
  {
    name: "a rule whose destination the account does not hold is skipped for the next best",
    destinations: [A, DEFAULT],
    rules: [rule("4930", "gone"), rule("49", A)],
    number: "4930123456",
    expected: { to: "a", kind: "routing_rule", prefix: "49" },
  },
  {
    name: "a number no rule's prefix starts goes to the default destination",
    destinations: [A, DEFAULT],
    rules: [rule("4930", A)],
    number: "4420794600",
    expected: { to: "default", kind: "default", prefix: null },
  },
  {
    name: "with no divert, entry destination or rule, the default takes the call",
    destinations: [A, DEFAULT],
    expected: { to: "default", kind: "default", prefix: null },
  },
  {
    name: "no route (null) when nothing matches and no destination is the default",
    destinations: [A, B],
    rules: [rule("4930", A)],
    number: "4420794600",
    expected: null,
  },
  { name: "no route (null) for an account with no destinations", destinations: [], rules: [rule("1", "x")], divertTo: "x", expected: null },
];

describe("chooseRoute", () => {
  it.each(cases)("$name", ({ destinations, rules = [], entryTo = null, number = "14155550123", divertTo = null, expected }) => {
    const route = chooseRoute({ destinations, rules }, entry(entryTo), number, divertTo);
    expect(route && { to: route.destination.id, kind: route.kind, prefix: route.prefix }).toEqual(expected);
  });
});
