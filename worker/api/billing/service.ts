import type { LedgerEntry } from "../../../durable-objects/account-ledger.ts";
import type { Bindings } from "../../env.ts";
import type { Db } from "../../lib/db.ts";
import { notFound } from "../../lib/errors.ts";
import { ledgerFor } from "../../lib/ledger.ts";
import { toUsd } from "../../lib/money.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { portsOf } from "../accounts/service.ts";
import type { Principal } from "../auth/principal.ts";
import { findPlan } from "../catalogue/service.ts";

export async function balanceOf(env: Bindings, db: Db, { customer }: Principal) {
  const [ledger, plan, ports] = await Promise.all([
    ledgerFor(env, customer.id).summary(),
    findPlan(db, customer.planCode),
    portsOf(db, customer),
  ]);
  if (!plan) throw notFound("Plan not found");
  return {
    balance: toUsd(ledger.balance_micros),
    plan: plan.code,
    plan_name: plan.name,
    ports,
    active_calls: ledger.ports_in_use,
    cycle_minutes_used: ledger.cycle_seconds_used / 60,
    included_minutes: plan.includedMinutes,
    per_minute_rate: toUsd(plan.perMinuteRateMicros),
    plan_renews_at: customer.planRenewsAt,
  };
}

const entryOut = (e: LedgerEntry) => ({
  id: e.id,
  type: e.type,
  amount: toUsd(e.amount_micros),
  balance_after: toUsd(e.balance_after_micros),
  call_id: e.call_id,
  description: e.description,
  waived_amount: toUsd(e.waived_micros),
  created_at: e.created_at,
});

export async function listLedger(env: Bindings, { customer }: Principal, params: PageParams) {
  const { total, items } = await ledgerFor(env, customer.id).listEntries(params.limit, params.offset);
  return page(items.map(entryOut), total, params);
}
