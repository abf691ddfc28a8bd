// Call admission, the one round trip a SIP node makes before it lets a call through:
// source → whitelist entry (sub-customer by dial prefix) → account → controlled numbers →
// route → port and credit in the AccountLedger → ticket. A source on no whitelist is
// ignored (the node answers nothing); any other refusal carries its SIP code and, the
// account being known, is recorded as a call.
import { and, asc, desc, eq, gte, isNull, lte, or, gt } from "drizzle-orm";
import type { AdmissionRejection, AdmissionTicket, AdmitRequest, AdmitResponse } from "../../schema/node-api.ts";
import { aniControls } from "../../schema/automation.ts";
import { calls } from "../../schema/calls.ts";
import { plans } from "../../schema/catalogue.ts";
import { customers } from "../../schema/identity.ts";
import { destinations, routingRules, whitelistIps } from "../../schema/network.ts";
import { ipToHex } from "../../schema/cidr.ts";
import type { Db } from "../lib/db.ts";
import type { Config } from "../env.ts";
import type { Services } from "../services/context.ts";
import { newId } from "../lib/ids.ts";
import { digitsOf, normalizeNumber } from "../lib/numbers.ts";
import { decryptSecret, destinationSecretContext } from "../lib/secrets.ts";
import { nowIso } from "../lib/time.ts";

type Entry = typeof whitelistIps.$inferSelect;
type Customer = typeof customers.$inferSelect;
type Plan = typeof plans.$inferSelect;
type Destination = typeof destinations.$inferSelect;
type Route = { destination: Destination; kind: AdmissionTicket["route"]; prefix: string | null };

/** Why a call is refused, and the SIP final response that says so. */
const REFUSALS = {
  suspended: { sip_code: 403, reason: "account_suspended" },
  no_sub_customer: { sip_code: 404, reason: "no_sub_customer_for_prefix" },
  blocked: { sip_code: 403, reason: "blocked_caller" },
  no_route: { sip_code: 404, reason: "no_route" },
  no_port: { sip_code: 503, reason: "no_free_port" },
  no_credit: { sip_code: 402, reason: "insufficient_credit" },
} as const;
type Refusal = keyof typeof REFUSALS;

/**
 * Three round trips to D1 whatever the account looks like: the source's entries with their
 * account and plan (one joined query); the caller's controls, the account's destinations and
 * routing rules (one batch); the call row. Routing is then decided in memory.
 */
export async function admitCall(deps: Services, request: AdmitRequest): Promise<AdmitResponse> {
  const entries = await entriesFor(deps.db, request.src_ip);
  if (entries.length === 0) return { decision: "ignore" };
  const dialed = normalizeNumber(request.dialed);
  const match = pickEntry(
    entries.map((e) => e.entry),
    dialed,
  );
  // Ranges of different accounts never overlap, so every entry holding the source is one account's.
  const { customer, plan } = entries[0]!;

  const call = newCall(request, customer, match);
  if (!match) return refuse(deps, call, "no_sub_customer");
  if (customer.status === "suspended") return refuse(deps, call, "suspended");

  const { control, routing } = await routingReads(deps.db, customer.id, request.ani);
  if (control?.action === "block") return refuse(deps, call, "blocked");
  const route = chooseRoute(routing, match.entry, match.number, control?.divertDestinationId ?? null);
  if (!route) return refuse(deps, call, "no_route");
  Object.assign(call, routeFields(route));
  if (!plan) throw new Error(`plan ${customer.planCode} of account ${customer.id} is missing`);
  const now = call.startedAt;
  const pilotRunning = customer.pilotEndsAt !== null && customer.pilotEndsAt > now;
  const admission = await deps.ledger(customer.id).admit({
    callId: call.id,
    ports: customer.portsOverride ?? plan.ports,
    terms: {
      ratePerMinuteMicros: plan.perMinuteRateMicros,
      minBillableSeconds: plan.minBillableSeconds,
      capSeconds: deps.config.MAX_CALL_SECONDS,
    },
    pilot: pilotRunning ? { minutesLimit: customer.pilotMinutesLimit } : null,
    includedMinutes: plan.includedMinutes,
    at: now,
  });
  if (!admission.ok) return refuse(deps, call, admission.reason);

  const sampled = isSampled(route.destination.sampleRate);
  // sample_mode record: the sample is what gets recorded at all; the other calls are relayed only.
  const processing = !sampled && route.destination.sampleMode === "record" ? "relay_only" : route.destination.processing;
  const [destination] = await Promise.all([
    targetOf(deps.config, route.destination),
    deps.db.insert(calls).values({
      ...call,
      status: "ringing",
      maxCallSeconds: admission.maxCallSeconds,
      rateAppliedMicros: admission.ratePerMinuteMicros,
      processing,
      sampled,
      transcriptStatus: "pending",
      analysisStatus: "pending",
    }),
  ]);
  return {
    decision: "admit",
    call_id: call.id,
    customer_id: customer.id,
    dialed: `${route.destination.techPrefix ?? ""}${match.number}`,
    ani: call.ani ?? null,
    destination,
    max_call_seconds: admission.maxCallSeconds,
    granted_seconds: admission.maxCallSeconds,
    processing,
    sampled,
    sub_customer: call.subCustomer ?? null,
    route: route.kind,
  };
}

/** Enabled entries whose range holds the source address, each with its account and the account's plan. */
async function entriesFor(db: Db, srcIp: string): Promise<Array<{ entry: Entry; customer: Customer; plan: Plan | null }>> {
  const ip = ipToHex(srcIp);
  if (!ip) return [];
  return db
    .select({ entry: whitelistIps, customer: customers, plan: plans })
    .from(whitelistIps)
    .innerJoin(customers, eq(customers.id, whitelistIps.customerId))
    .leftJoin(plans, eq(plans.code, customers.planCode))
    .where(and(lte(whitelistIps.rangeStart, ip), gte(whitelistIps.rangeEnd, ip), eq(whitelistIps.enabled, true)));
}

/**
 * Behind one address, sub-customers are told apart by a dial prefix on the number: the
 * longest matching prefix wins and is stripped; an entry without a prefix takes the rest.
 */
export function pickEntry(entries: Entry[], dialed: string): { entry: Entry; number: string } | null {
  const digits = digitsOf(dialed);
  const prefixed = entries
    .filter((e) => e.dialPrefix && digits.startsWith(e.dialPrefix))
    .sort((a, b) => b.dialPrefix!.length - a.dialPrefix!.length)[0];
  if (prefixed) return { entry: prefixed, number: digits.slice(prefixed.dialPrefix!.length) };
  const plain = entries.find((e) => !e.dialPrefix);
  return plain ? { entry: plain, number: dialed } : null;
}

type Routing = { destinations: Destination[]; rules: Array<typeof routingRules.$inferSelect> };

/** The caller's active control (block or divert) and everything routing needs, in one batch. */
async function routingReads(db: Db, customerId: string, ani: string | null) {
  const now = nowIso();
  const [controls, accountDestinations, rules] = await db.batch([
    db
      .select()
      .from(aniControls)
      .where(
        and(
          eq(aniControls.customerId, customerId),
          // No calling number: nothing can match (controls are never stored for an empty ANI).
          eq(aniControls.ani, ani ? digitsOf(ani) : ""),
          isNull(aniControls.releasedAt),
          or(isNull(aniControls.expiresAt), gt(aniControls.expiresAt, now)),
        ),
      )
      .orderBy(desc(aniControls.createdAt))
      .limit(1),
    db.select().from(destinations).where(eq(destinations.customerId, customerId)),
    db
      .select()
      .from(routingRules)
      .where(and(eq(routingRules.customerId, customerId), eq(routingRules.enabled, true)))
      .orderBy(asc(routingRules.priority)),
  ]);
  return { control: ani ? controls[0] : undefined, routing: { destinations: accountDestinations, rules } };
}

/** Divert, else the entry's destination, else routing rules (longest prefix, then priority), else the default. */
export function chooseRoute(routing: Routing, entry: Entry, number: string, divertTo: string | null): Route | null {
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

function newCall(request: AdmitRequest, customer: Customer, match: { entry: Entry } | null): typeof calls.$inferInsert {
  const now = nowIso();
  return {
    id: newId(),
    customerId: customer.id,
    sipCallId: request.sip_call_id,
    origin: request.origin,
    status: "rejected",
    srcIp: request.src_ip,
    ani: request.ani === null ? null : normalizeNumber(request.ani),
    dialed: normalizeNumber(request.dialed),
    subCustomer: match?.entry.dialPrefix ? (match.entry.label ?? match.entry.dialPrefix) : null,
    dialPrefix: match?.entry.dialPrefix ?? null,
    aiMode: customer.aiMode,
    nodeId: request.node_id,
    capturedHeaders: request.captured_headers ?? null,
    transcriptStatus: "none",
    analysisStatus: "none",
    startedAt: now,
    createdAt: now,
    updatedAt: now,
  };
}

function routeFields(route: Route): Partial<typeof calls.$inferInsert> {
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

async function refuse(deps: Services, call: typeof calls.$inferInsert, refusal: Refusal): Promise<AdmissionRejection> {
  const { sip_code, reason } = REFUSALS[refusal];
  await deps.db.insert(calls).values({ ...call, status: "rejected", sipCode: sip_code, endReason: reason, endedAt: call.startedAt });
  return { decision: "reject", sip_code, reason, call_id: call.id! };
}

async function targetOf(config: Config, d: Destination): Promise<AdmissionTicket["destination"]> {
  const password = d.authPasswordEnc
    ? await decryptSecret(config.ENCRYPTION_KEY, d.authPasswordEnc, destinationSecretContext(d.id, "auth_password"))
    : null;
  return {
    id: d.id,
    host: d.host,
    port: d.port,
    transport: d.transport as "udp" | "tcp" | "tls",
    kind: d.kind as "sip" | "voice_ai",
    provider: d.provider,
    agent_id: d.agentId,
    tech_prefix: d.techPrefix,
    auth: password !== null && d.authUsername ? { username: d.authUsername, password, realm: d.authRealm } : null,
  };
}

/** One call in `rate` is sampled for analysis. */
const isSampled = (rate: number) => rate <= 1 || crypto.getRandomValues(new Uint32Array(1))[0]! % rate === 0;
