// The admission state of an account (its status and plan, whitelist entries, destinations,
// routing rules, controlled numbers, screening settings and do-not-originate list) as the account's Durable Object holds it, so a call is
// admitted without reading D1. D1 stays the record; every service verb that changes one of
// those tables calls syncAdmissionState after its write, and the ledger takes the new state.
import { and, asc, desc, eq, gt, isNull, lte, gte, or } from "drizzle-orm";
import type { AdmissionDestination, AdmissionState } from "../../../durable-objects/call-ledger/admission.ts";
import type { DestinationTarget } from "../../../schema/node-api.ts";
import { aniControls } from "../../../schema/automation.ts";
import { plans } from "../../../schema/catalogue.ts";
import { ipToHex } from "../../../schema/cidr.ts";
import { customers } from "../../../schema/identity.ts";
import { doNotOriginate, screeningSettings, withDefaults } from "../../../schema/screening.ts";
import { destinations, routingRules, whitelistIps } from "../../../schema/network.ts";
import type { Config } from "../../env.ts";
import type { Db } from "../../lib/db.ts";
import { decryptSecret, destinationSecretContext } from "../../lib/secrets.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { admitsCalls } from "./whitelist-admission.ts";

/** Brings the account's admission state in its Durable Object up to date with D1. */
export async function syncAdmissionState(services: Services, customerId: string): Promise<void> {
  const state = await admissionStateOf(services.db, customerId);
  await services.ledger(customerId).loadAdmissionState(state, nowIso());
}

/** The account whose enabled whitelist range holds an address (ranges of different accounts never overlap). */
export async function accountHolding(db: Db, srcIp: string): Promise<string | null> {
  const ip = ipToHex(srcIp);
  if (!ip) return null;
  const rows = await db
    .select()
    .from(whitelistIps)
    .where(and(lte(whitelistIps.rangeStart, ip), gte(whitelistIps.rangeEnd, ip), eq(whitelistIps.enabled, true)));
  // Several accounts may claim an address (one proven or first, others waiting): the one admitting calls.
  return rows.find(admitsCalls)?.customerId ?? null;
}

/**
 * An admitted call's destination as the node's ticket carries it: where to send the INVITE, and
 * the destination's digest credentials, opened here (D1 and the ledger hold the password sealed).
 */
export async function destinationTarget(config: Pick<Config, "ENCRYPTION_KEY">, d: AdmissionDestination): Promise<DestinationTarget> {
  const password = d.authPasswordEnc
    ? await decryptSecret(config.ENCRYPTION_KEY, d.authPasswordEnc, destinationSecretContext(d.id, "auth_password"))
    : null;
  const { id, host, port, transport, kind, provider } = d;
  const auth = password !== null && d.authUsername ? { username: d.authUsername, password, realm: d.authRealm } : null;
  return { id, host, port, transport, kind, provider, agent_id: d.agentId, tech_prefix: d.techPrefix, auth };
}

/** Everything admission reads for one account, from D1 in one batch; null when the account is gone. */
export async function admissionStateOf(db: Db, customerId: string): Promise<AdmissionState | null> {
  const now = nowIso();
  const [accounts, entries, accountDestinations, rules, controls, screening, dno] = await db.batch([
    db
      .select({ customer: customers, plan: plans })
      .from(customers)
      .leftJoin(plans, eq(plans.code, customers.planCode))
      .where(eq(customers.id, customerId))
      .limit(1),
    db
      .select()
      .from(whitelistIps)
      .where(and(eq(whitelistIps.customerId, customerId), eq(whitelistIps.enabled, true))),
    db.select().from(destinations).where(eq(destinations.customerId, customerId)),
    db
      .select()
      .from(routingRules)
      .where(and(eq(routingRules.customerId, customerId), eq(routingRules.enabled, true)))
      .orderBy(asc(routingRules.priority)),
    db
      .select()
      .from(aniControls)
      .where(
        and(
          eq(aniControls.customerId, customerId),
          isNull(aniControls.releasedAt),
          or(isNull(aniControls.expiresAt), gt(aniControls.expiresAt, now)),
        ),
      )
      .orderBy(desc(aniControls.createdAt)),
    db.select().from(screeningSettings).where(eq(screeningSettings.customerId, customerId)).limit(1),
    db.select({ number: doNotOriginate.number }).from(doNotOriginate).where(eq(doNotOriginate.customerId, customerId)),
  ]);
  const found = accounts[0];
  if (!found) return null;
  const { customer, plan } = found;
  if (!plan) throw new Error(`plan ${customer.planCode} of account ${customer.id} is missing`);
  return {
    account: {
      id: customer.id,
      status: customer.status,
      aiMode: customer.aiMode,
      ports: customer.portsOverride ?? plan.ports,
      ratePerMinuteMicros: plan.perMinuteRateMicros,
      minBillableSeconds: plan.minBillableSeconds,
      includedMinutes: plan.includedMinutes,
      pilotEndsAt: customer.pilotEndsAt,
      pilotMinutesLimit: customer.pilotMinutesLimit,
    },
    // Only entries that admit calls now (proof of control: ./whitelist-admission.ts).
    entries: entries.filter(admitsCalls).map((e) => ({
      id: e.id,
      rangeStart: e.rangeStart,
      rangeEnd: e.rangeEnd,
      dialPrefix: e.dialPrefix,
      label: e.label,
      destinationId: e.destinationId,
    })),
    destinations: accountDestinations.map((d) => ({
      id: d.id,
      host: d.host,
      port: d.port,
      transport: d.transport,
      kind: d.kind,
      provider: d.provider,
      agentId: d.agentId,
      techPrefix: d.techPrefix,
      label: d.label,
      isDefault: d.isDefault,
      sampleRate: d.sampleRate,
      sampleMode: d.sampleMode,
      processing: d.processing,
      transferMode: d.transferMode,
      authUsername: d.authUsername,
      authRealm: d.authRealm,
      authPasswordEnc: d.authPasswordEnc,
    })),
    rules: rules.map((r) => ({ prefix: r.prefix, priority: r.priority, destinationId: r.destinationId })),
    // The newest control of a number wins, as admission finds the first.
    controls: controls.map((c) => ({
      id: c.id,
      ani: c.ani,
      action: c.action === "divert" ? "divert" : "block",
      divertDestinationId: c.divertDestinationId,
      expiresAt: c.expiresAt,
    })),
    screening: { rules: withDefaults(screening[0]?.rules), doNotOriginate: dno.map((d) => d.number) },
  };
}
