// Buying a plan (POST /customer/plan) and renewing it every cycle (the Cron Trigger). The fee is
// debited through the account's AccountLedger; the account row then takes the plan, the ledger's
// admission state follows (ports, rate, included minutes) and a new cycle of included minutes starts.
import { and, eq, isNotNull, lte } from "drizzle-orm";
import { v5 as uuidv5 } from "uuid";
import { plans } from "../../../schema/catalogue.ts";
import { customers } from "../../../schema/identity.ts";
import { toUsd } from "../../lib/money.ts";
import { nowIso } from "../../lib/time.ts";
import { accountOut } from "../accounts/accounts.ts";
import { syncAdmissionState } from "../trunk/admission-state.ts";
import { DEFAULT_PLAN } from "../identity/auth.ts";
import { findPlan } from "./catalogue.ts";
import type { Services } from "../context.ts";
import { Conflict, NotFound, PaymentRequired } from "../errors.ts";
import type { CustomerRow, Principal } from "../identity/principal.ts";

/** Namespace of the ledger entry ids of plan fees (UUID v5 of what the fee pays for). */
const PLAN_FEE_NAMESPACE = "5b0e8f1c-3d0a-4c55-9a39-6f3f0f2b7d11";

/** The same instant a calendar month later, on the last day of that month when it is shorter (Jan 31 → Feb 28). */
export function addMonth(iso: string): string {
  const d = new Date(iso);
  const day = d.getUTCDate();
  const next = new Date(
    Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()),
  );
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next.toISOString();
}

/**
 * The fee's entry id names the change it pays for (the account, the plan, and the cycle it
 * replaces or renews), so two requests racing for the same change are charged once.
 */
const feeEntryId = (customerId: string, planCode: string, cycleKey: string | null) =>
  uuidv5(`${customerId}|${planCode}|${cycleKey ?? "none"}`, PLAN_FEE_NAMESPACE);

/** Changes the account's plan at once: the first month's fee is charged in full, a new cycle starts now. */
export async function subscribePlan(s: Services, principal: Principal, input: { plan_code: string }) {
  const current = await changePlan(s, principal.customer, input.plan_code);
  return accountOut(s, { ...principal, customer: current });
}

/** subscribePlan for an account row (also used when a card payment for a plan completes); the row after. */
export async function changePlan(s: Services, customer: CustomerRow, planCode: string): Promise<CustomerRow> {
  const plan = await findPlan(s, planCode);
  if (!plan || !plan.active) throw new NotFound("Plan not found");
  if (plan.code === customer.planCode) throw new Conflict("Already subscribed to this plan");
  const now = nowIso();
  const entryId = feeEntryId(customer.id, plan.code, customer.planStartedAt ?? customer.createdAt);
  if (plan.monthlyFeeMicros > 0) {
    const charged = await s.ledger(customer.id).debit({
      entryId,
      type: "plan",
      amountMicros: plan.monthlyFeeMicros,
      description: `${plan.name} plan, first month`,
      createdAt: now,
    });
    if (!charged.ok) throw new PaymentRequired("Insufficient balance for the first month's fee");
  }
  const paid = plan.monthlyFeeMicros > 0;
  // Only from the state the fee was charged for: a racing request that already moved the account leaves it alone.
  const row = await s.db
    .update(customers)
    .set({ planCode: plan.code, planStartedAt: now, planRenewsAt: paid ? addMonth(now) : null, updatedAt: now })
    .where(and(eq(customers.id, customer.id), eq(customers.planCode, customer.planCode)))
    .returning()
    .get();
  if (row) {
    await s.ledger(customer.id).startCycle();
    await syncAdmissionState(s, customer.id);
  }
  const current = row ?? (await s.db.select().from(customers).where(eq(customers.id, customer.id)).get())!;
  if (!row && current.planCode !== plan.code) {
    // Another request changed the plan first: this fee bought nothing.
    await refundFee(s, customer.id, entryId);
    throw new Conflict("The plan was changed by another request");
  }
  return current;
}

export type RenewalOutcome = { customerId: string; outcome: "renewed" | "lapsed" | "skipped" };

/** Renews every paid plan whose cycle has ended; one that the balance cannot cover goes back to pay-as-you-go. */
export async function renewPlans(s: Services, now: Date): Promise<RenewalOutcome[]> {
  const due = await s.db
    .select({ customer: customers, plan: plans })
    .from(customers)
    .innerJoin(plans, eq(plans.code, customers.planCode))
    .where(and(isNotNull(customers.planRenewsAt), lte(customers.planRenewsAt, now.toISOString())));
  const outcomes: RenewalOutcome[] = [];
  for (const { customer, plan } of due) {
    if (plan.monthlyFeeMicros === 0) continue;
    outcomes.push({ customerId: customer.id, outcome: await renewOne(s, customer, plan) });
  }
  return outcomes;
}

async function renewOne(s: Services, customer: CustomerRow, plan: typeof plans.$inferSelect): Promise<RenewalOutcome["outcome"]> {
  const cycleStart = customer.planRenewsAt!;
  const at = nowIso();
  const entryId = feeEntryId(customer.id, plan.code, cycleStart);
  const charged = await s.ledger(customer.id).debit({
    entryId,
    type: "plan",
    amountMicros: plan.monthlyFeeMicros,
    description: `${plan.name} plan, renewal`,
    createdAt: at,
  });
  const unchanged = and(eq(customers.id, customer.id), eq(customers.planCode, plan.code), eq(customers.planRenewsAt, cycleStart));
  if (charged.ok) {
    const row = await s.db
      .update(customers)
      .set({ planStartedAt: cycleStart, planRenewsAt: addMonth(cycleStart), updatedAt: at })
      .where(unchanged)
      .returning({ id: customers.id })
      .get();
    if (row) {
      await s.ledger(customer.id).startCycle();
      return "renewed";
    }
    const now = await s.db.select().from(customers).where(eq(customers.id, customer.id)).get();
    // Another tick renewed this very cycle (one fee, same entry id); otherwise the plan changed meanwhile.
    if (now?.planCode === plan.code && now.planStartedAt === cycleStart) return "renewed";
    await refundFee(s, customer.id, entryId);
    return "skipped";
  }
  const row = await s.db
    .update(customers)
    .set({ planCode: DEFAULT_PLAN, planStartedAt: at, planRenewsAt: null, updatedAt: at })
    .where(unchanged)
    .returning({ id: customers.id })
    .get();
  if (row) {
    await s.ledger(customer.id).startCycle();
    await syncAdmissionState(s, customer.id);
    await mailLapsed(s, customer, plan);
  }
  return "lapsed";
}

/** Gives back a plan fee (once: the refund's id follows from the fee's). */
async function refundFee(s: Services, customerId: string, feeEntryId: string) {
  await s.ledger(customerId).refund({
    entryId: uuidv5(`refund|${feeEntryId}`, PLAN_FEE_NAMESPACE),
    ofEntryId: feeEntryId,
    type: "refund",
    description: "Plan fee returned: the plan was changed meanwhile",
    createdAt: nowIso(),
  });
}

async function mailLapsed(s: Services, customer: CustomerRow, plan: typeof plans.$inferSelect) {
  const fee = toUsd(plan.monthlyFeeMicros).toFixed(2);
  await s.mail.send({
    to: [customer.email],
    subject: `Call Shield: your ${plan.name} plan was not renewed`,
    text:
      `The balance of your Call Shield account did not cover the US$${fee} monthly fee of the ${plan.name} plan, ` +
      `so the account is back on pay-as-you-go: calls are billed per minute at that rate and the plan's ports ` +
      `and included minutes no longer apply.\nAdd credit and choose the plan again in the portal (Billing) to get them back.\n`,
  });
}
