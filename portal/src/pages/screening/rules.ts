// Every screening rule as the page presents it: its group, its name and what it means in plain
// words, what its threshold counts, and its default. The defaults mirror RULE_DEFAULTS in
// schema/screening.ts (the portal does not bundle the schema's zod and drizzle); the rules the API
// returns already have them filled in, these only say which value is the default.

export const ACTIONS = ["off", "flag", "refuse", "divert"] as const;
export type Action = (typeof ACTIONS)[number];
export const SCOPES = ["caller_id", "dialled_prefix", "source"] as const;
export type Scope = (typeof SCOPES)[number];

/** One rule as the account set it (RuleSetting in schema/screening.ts). */
export type RuleSetting = {
  action: Action;
  scope?: Scope;
  threshold?: number;
  min_calls?: number;
  short_seconds?: number;
  prefix?: string;
  divert_destination_id?: string;
};

export type Group = "numbers" | "attestation" | "velocity";

type RuleInfo = {
  name: string;
  group: Group;
  title: string;
  meaning: string;
  defaults: RuleSetting;
  /** Velocity rules: what the threshold counts. */
  threshold?: string;
};

export const RULES: RuleInfo[] = [
  {
    name: "invalid_caller_id",
    group: "numbers",
    title: "Invalid caller ID",
    meaning: "The caller ID cannot be a phone number: too short, too long, or in no range its country assigns.",
    defaults: { action: "flag" },
  },
  {
    name: "caller_id_equals_dialled",
    group: "numbers",
    title: "Caller ID is the number dialled",
    meaning: "The call claims to come from the very number it calls: the person called would see their own number.",
    defaults: { action: "flag" },
  },
  {
    name: "neighbour_spoofing",
    group: "numbers",
    title: "Neighbour spoofing",
    meaning:
      "The caller ID looks like the dialled number's neighbour: in North America the same area code and exchange, elsewhere every digit but the last four the same. Robocallers pose as a local number because people answer those.",
    defaults: { action: "flag" },
  },
  {
    name: "do_not_originate",
    group: "numbers",
    title: "On the do-not-originate list",
    meaning: "The caller ID is on your do-not-originate list below: numbers that never place calls, so a call from one is spoofed.",
    defaults: { action: "flag" },
  },
  {
    name: "identity_failed",
    group: "attestation",
    title: "Caller ID failed verification",
    meaning:
      "The call's STIR/SHAKEN Identity header did not hold: a bad signature, a stale timestamp, a certificate that is not trusted or not reachable, or a caller ID it does not sign.",
    defaults: { action: "flag" },
  },
  {
    name: "verstat_failed",
    group: "attestation",
    title: "A carrier's verification failed",
    meaning:
      "A carrier before you verified the caller ID and says it failed (verstat=TN-Validation-Failed on From or P-Asserted-Identity).",
    defaults: { action: "flag" },
  },
  {
    name: "unverified_domestic",
    group: "attestation",
    title: "Unverified domestic caller ID",
    meaning:
      "The caller ID claims a number in the dialled number's country, but the call carries no verified attestation. Off by default: much legitimate traffic is not signed yet.",
    defaults: { action: "off" },
  },
  {
    name: "calls_per_minute",
    group: "velocity",
    title: "Calls per minute",
    meaning: "More calls within one minute than the threshold: a campaign dialling fast.",
    defaults: { action: "flag", scope: "caller_id", threshold: 30 },
    threshold: "Most calls in a minute",
  },
  {
    name: "concurrent_calls",
    group: "velocity",
    title: "Concurrent calls",
    meaning: "More calls up at the same time than the threshold.",
    defaults: { action: "flag", scope: "caller_id", threshold: 10 },
    threshold: "Most calls at once",
  },
  {
    name: "distinct_numbers_per_hour",
    group: "velocity",
    title: "Distinct numbers per hour",
    meaning: "More different numbers dialled within an hour than the threshold: someone working through a list.",
    defaults: { action: "flag", scope: "caller_id", threshold: 100 },
    threshold: "Most numbers in an hour",
  },
  {
    name: "sequential_dialling",
    group: "velocity",
    title: "Sequential dialling",
    meaning:
      "A longer run than the threshold of consecutive numbers dialled one after another (…0100, …0101, …0102): a number range being swept.",
    defaults: { action: "flag", scope: "caller_id", threshold: 10 },
    threshold: "Longest run allowed",
  },
  {
    name: "short_call_share",
    group: "velocity",
    title: "Share of very short calls (wangiri)",
    meaning:
      "More of the last hour's calls than the threshold (a percentage) end within a few seconds: one-ring calls made so that people call back a premium number. Counted once enough calls have ended.",
    defaults: { action: "flag", scope: "caller_id", threshold: 60, min_calls: 20, short_seconds: 6 },
    threshold: "Most short calls (%)",
  },
];

export const GROUPS: { group: Group; title: string; about: string }[] = [
  {
    group: "numbers",
    title: "Number checks",
    about: "What the caller ID and the dialled number say on their own.",
  },
  {
    group: "attestation",
    title: "Attestation (STIR/SHAKEN)",
    about: "What the call's signed Identity header, or a carrier that verified it before you, says about the caller ID.",
  },
  {
    group: "velocity",
    title: "Velocity",
    about:
      "How fast and how widely a caller ID, a dialled prefix or a source address is calling, counted as calls are admitted. A rule passing its threshold alerts you once an hour.",
  },
];

export const ACTION_NAMES: Record<Action, string> = {
  off: "Off",
  flag: "Flag (keep on the call)",
  refuse: "Refuse (603)",
  divert: "Divert to a destination",
};

export const SCOPE_NAMES: Record<Scope, string> = {
  caller_id: "Per caller ID",
  dialled_prefix: "Per dialled prefix",
  source: "Per source address",
};

/** A rule's name as people read it, or its machine name when the page does not know it. */
export const ruleTitle = (name: string) => RULES.find((r) => r.name === name)?.title ?? name.replace(/_/g, " ");

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** "Flag", or "Flag, per caller ID, over 30" for a velocity rule (the threshold is the most allowed). */
export function defaultText(rule: RuleInfo): string {
  const d = rule.defaults;
  if (d.threshold === undefined) return capital(d.action);
  const share = rule.name === "short_call_share";
  const extra = d.min_calls ? `, once ${d.min_calls} calls have ended, short meaning under ${d.short_seconds} s` : "";
  const scope = SCOPE_NAMES[d.scope ?? "caller_id"];
  return `${capital(d.action)}, ${scope.charAt(0).toLowerCase()}${scope.slice(1)}, over ${d.threshold}${share ? "%" : ""}${extra}`;
}
