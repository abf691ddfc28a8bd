// The Account resource as the API shows it, assembled from D1 (the account row and plan)
// and from the account's AccountLedger (balance, cycle minutes, pilot use).
import { eq } from "drizzle-orm";
import { plans } from "../../../schema/catalogue.ts";
import type { LedgerSummary } from "../../../durable-objects/account-ledger.ts";
import type { Db } from "../../lib/db.ts";
import { toUsd } from "../../lib/money.ts";
import type { Account, SessionCustomer } from "../../resources/accounts.ts";
import type { Services } from "../context.ts";
import { sessionRole, type CustomerRow, type Principal } from "../identity/principal.ts";

const DAY_MS = 86_400_000;

export async function portsOf(db: Db, customer: CustomerRow): Promise<number> {
  if (customer.portsOverride !== null) return customer.portsOverride;
  const plan = await db.select({ ports: plans.ports }).from(plans).where(eq(plans.code, customer.planCode)).get();
  return plan?.ports ?? 0;
}

function pilotOut(customer: CustomerRow, ledger: LedgerSummary, now = Date.now()) {
  if (!customer.pilotStartedAt || !customer.pilotEndsAt) return null;
  const endsAt = Date.parse(customer.pilotEndsAt);
  const minutesUsed = ledger.pilot_seconds_used / 60;
  const exhausted = customer.pilotMinutesLimit !== null && minutesUsed >= customer.pilotMinutesLimit;
  return {
    active: now < endsAt && !exhausted,
    started_at: customer.pilotStartedAt,
    ends_at: customer.pilotEndsAt,
    days_left: Math.max(0, Math.ceil((endsAt - now) / DAY_MS)),
    minutes_limit: customer.pilotMinutesLimit,
    minutes_used: minutesUsed,
    exhausted,
    waived_total: toUsd(ledger.waived_total_micros),
  };
}

export async function accountOut(s: Services, principal: Principal): Promise<Account> {
  const { customer, user } = principal;
  const [ledger, ports] = await Promise.all([s.ledger(customer.id).summary(), portsOf(s.db, customer)]);
  return {
    id: customer.id,
    email: customer.email,
    company: customer.company,
    phone: customer.phone,
    tax_id: customer.taxId,
    country: customer.country,
    province: customer.province,
    role: sessionRole(principal),
    status: customer.status,
    must_change_password: user.mustChangePassword,
    balance: toUsd(ledger.balance_micros),
    plan_code: customer.planCode,
    ports,
    plan_started_at: customer.planStartedAt,
    plan_renews_at: customer.planRenewsAt,
    cycle_minutes_used: ledger.cycle_seconds_used / 60,
    webhook_url: customer.webhookUrl,
    created_at: customer.createdAt,
    twofa_enabled: customer.twofaEnabled,
    dialer_enabled: customer.dialerEnabled,
    ai_mode: customer.aiMode,
    data_region: customer.dataRegion,
    media_region: customer.mediaRegion,
    impersonated_by: principal.impersonatedBy,
    pilot: pilotOut(customer, ledger),
    profile: customer.profile ? { ...customer.profile, profile_completed_at: customer.profileCompletedAt } : null,
    terms_version: customer.termsVersion,
    terms_current_version: s.config.TERMS_VERSION,
    user: { id: user.id, email: user.email, name: user.name },
  };
}

export function sessionCustomerOut(principal: Principal): SessionCustomer {
  const { customer, user } = principal;
  return {
    id: customer.id,
    email: customer.email,
    company: customer.company,
    phone: customer.phone,
    role: sessionRole(principal),
    must_change_password: user.mustChangePassword,
    dialer_enabled: customer.dialerEnabled,
    ai_mode: customer.aiMode,
    status: customer.status,
  };
}
