// What a call's admission decides, apart from storage: the account's admission state as the
// ledger holds it (written through from D1 by the Worker on every change), and the pure steps
// from a source and a dialled number to a route or a refusal. The ledger runs them in memory.
import type { AdmitRequest } from "../../schema/node-api.ts";
import { ipToHex } from "../../schema/cidr.ts";
import { digitsOf, normalizeNumber } from "../../schema/numbers.ts";
import type { IdentityFacts, ScreeningResult, ScreeningSettings } from "../../schema/screening.ts";

export type AdmissionEntry = {
  id: string;
  rangeStart: string;
  rangeEnd: string;
  dialPrefix: string | null;
  label: string | null;
  destinationId: string | null;
};

export type AdmissionDestination = {
  id: string;
  host: string;
  port: number;
  transport: "udp" | "tcp" | "tls";
  kind: "sip" | "voice_ai";
  provider: string | null;
  agentId: string | null;
  techPrefix: string | null;
  label: string | null;
  isDefault: boolean;
  sampleRate: number;
  sampleMode: string;
  processing: string;
  transferMode: string | null;
  authUsername: string | null;
  authRealm: string | null;
  /** Sealed as D1 holds it; the Worker opens it for the ticket. */
  authPasswordEnc: string | null;
};

export type AdmissionRule = { prefix: string; priority: number; destinationId: string };

/** A controlled calling number (automation): refused, or diverted to another destination. */
export type AdmissionControl = {
  id: string;
  /** Digits only. */
  ani: string;
  action: "block" | "divert";
  divertDestinationId: string | null;
  expiresAt: string | null;
};

export type AdmissionAccount = {
  id: string;
  status: string;
  aiMode: string | null;
  ports: number;
  ratePerMinuteMicros: number;
  minBillableSeconds: number;
  includedMinutes: number | null;
  pilotEndsAt: string | null;
  pilotMinutesLimit: number | null;
};

/** The account's screening (screening/screen.ts): every rule with its defaults filled in, and the numbers that never place calls (E.164). */
export type AdmissionScreening = { rules: ScreeningSettings; doNotOriginate: string[] };

/** Everything a call's admission reads, for one account. Only enabled entries and rules are kept. */
export type AdmissionState = {
  account: AdmissionAccount;
  entries: AdmissionEntry[];
  destinations: AdmissionDestination[];
  rules: AdmissionRule[];
  controls: AdmissionControl[];
  /** Absent from states written before screening: the defaults and no list. */
  screening?: AdmissionScreening;
};

/** Why a call is refused, and the SIP final response that says so. */
export const REFUSALS = {
  suspended: { sip_code: 403, reason: "account_suspended" },
  no_sub_customer: { sip_code: 404, reason: "no_sub_customer_for_prefix" },
  blocked: { sip_code: 603, reason: "controlled_number_blocked" },
  no_route: { sip_code: 404, reason: "no_route" },
  no_port: { sip_code: 503, reason: "no_free_port" },
  no_credit: { sip_code: 402, reason: "insufficient_credit" },
  placed_calls_cap: { sip_code: 403, reason: "placed_calls_daily_cap" },
  placed_minutes_cap: { sip_code: 403, reason: "placed_minutes_daily_cap" },
} as const;
export type Refusal = keyof typeof REFUSALS;

/** A screening rule's refusal: 603 Decline, the reason naming the rule (the node puts it in a Reason header). */
export const screeningRefusal = (rule: string) => ({ sip_code: 603, reason: `screening:${rule}` });

export type Route = {
  destination: AdmissionDestination;
  /** forced: a call the platform places itself on a destination it names (a test call). */
  kind: "divert" | "whitelist_entry" | "routing_rule" | "default" | "forced";
  prefix: string | null;
};

/** The account's entries whose range holds the source address. */
export function entriesHolding(state: AdmissionState, srcIp: string): AdmissionEntry[] {
  const ip = ipToHex(srcIp);
  if (!ip) return [];
  return state.entries.filter((e) => e.rangeStart <= ip && ip <= e.rangeEnd);
}

/**
 * Behind one address, sub-customers are told apart by a dial prefix on the number: the
 * longest matching prefix wins and is stripped; an entry without a prefix takes the rest.
 */
export function pickEntry<E extends Pick<AdmissionEntry, "dialPrefix">>(entries: E[], dialed: string): { entry: E; number: string } | null {
  const digits = digitsOf(dialed);
  const prefixed = entries
    .filter((e) => e.dialPrefix && digits.startsWith(e.dialPrefix))
    .sort((a, b) => b.dialPrefix!.length - a.dialPrefix!.length)[0];
  if (prefixed) return { entry: prefixed, number: digits.slice(prefixed.dialPrefix!.length) };
  const plain = entries.find((e) => !e.dialPrefix);
  return plain ? { entry: plain, number: dialed } : null;
}

/** The caller's control in force at `now`, if any (none without a calling number). */
export function controlFor(state: AdmissionState, ani: string | null, now: string): AdmissionControl | undefined {
  if (!ani) return undefined;
  const digits = digitsOf(ani);
  return state.controls.find((c) => c.ani === digits && (c.expiresAt === null || c.expiresAt > now));
}

type Routing = Pick<AdmissionState, "destinations" | "rules">;

/** The account's destination named by a call the platform places itself, or null when it is gone. */
export function forcedRoute(routing: Routing, destinationId: string): Route | null {
  const destination = routing.destinations.find((d) => d.id === destinationId);
  return destination ? { destination, kind: "forced", prefix: null } : null;
}

/** Divert, else the entry's destination, else routing rules (longest prefix, then priority), else the default. */
export function chooseRoute(
  routing: Routing,
  entry: Pick<AdmissionEntry, "destinationId">,
  number: string,
  divertTo: string | null,
): Route | null {
  const byId = (id: string) => routing.destinations.find((d) => d.id === id);
  const diverted = divertTo ? byId(divertTo) : undefined;
  if (diverted) return { destination: diverted, kind: "divert", prefix: null };
  const entryDestination = entry.destinationId ? byId(entry.destinationId) : undefined;
  if (entryDestination) return { destination: entryDestination, kind: "whitelist_entry", prefix: null };
  const digits = digitsOf(number);
  const best = routing.rules
    .filter((rule) => digits.startsWith(digitsOf(rule.prefix)) && byId(rule.destinationId))
    .sort((a, b) => digitsOf(b.prefix).length - digitsOf(a.prefix).length || a.priority - b.priority)[0];
  if (best) return { destination: byId(best.destinationId)!, kind: "routing_rule", prefix: best.prefix };
  const fallback = routing.destinations.find((d) => d.isDefault);
  return fallback ? { destination: fallback, kind: "default", prefix: null } : null;
}

/** The call's record as D1 keeps it (camelCase columns of `calls`), from admission on. */
export type CallRecordValue = string | number | boolean | null | { [header: string]: string } | ScreeningResult;
export type CallRecord = { [column: string]: CallRecordValue } & { id: string; customerId: string; startedAt: string; status: string };

export function newCallRecord(
  id: string,
  request: Pick<AdmitRequest, "sip_call_id" | "origin" | "src_ip" | "ani" | "dialed" | "node_id" | "captured_headers">,
  account: AdmissionAccount,
  entry: AdmissionEntry | null,
  now: string,
): CallRecord {
  return {
    id,
    customerId: account.id,
    sipCallId: request.sip_call_id,
    origin: request.origin,
    status: "rejected",
    srcIp: request.src_ip,
    ani: request.ani === null ? null : normalizeNumber(request.ani),
    dialed: normalizeNumber(request.dialed),
    subCustomer: entry?.dialPrefix ? (entry.label ?? entry.dialPrefix) : null,
    dialPrefix: entry?.dialPrefix ?? null,
    aiMode: account.aiMode,
    nodeId: request.node_id,
    capturedHeaders: request.captured_headers ?? null,
    transcriptStatus: "none",
    analysisStatus: "none",
    startedAt: now,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * What the node read of the caller ID's attestation, on the record from admission on (null: a node
 * that does not read it), with a screening result holding only that until the rules have run.
 */
export function identityFields(identity: IdentityFacts | null): Record<string, CallRecordValue> {
  return {
    attestation: identity?.attestation ?? null,
    identityStatus: identity?.status ?? null,
    identityReason: identity?.reason ?? null,
    screening: { identity, flags: [], action: null, rule: null },
  };
}

export function routeFields(route: Route): Record<string, CallRecordValue> {
  const d = route.destination;
  return {
    destHost: d.host,
    destPort: d.port,
    destTransport: d.transport,
    destKind: d.kind,
    destTechPrefix: d.techPrefix,
    destProvider: d.provider,
    routedDestinationId: d.id,
    routedDestinationLabel: d.label,
    routePrefix: route.prefix,
    transferMode: d.transferMode,
  };
}

/** One call in `rate` is sampled for analysis. */
export const isSampled = (rate: number) => rate <= 1 || crypto.getRandomValues(new Uint32Array(1))[0]! % rate === 0;
