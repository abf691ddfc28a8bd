import { validate as isUuid, v5 as uuidv5 } from "uuid";
import type { LedgerEntry } from "../../../durable-objects/account-ledger.ts";
import { toUsd } from "../../lib/money.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { portsOf } from "../accounts/accounts.ts";
import { findPlan } from "./catalogue.ts";
import type { Services } from "../context.ts";
import { NotFound } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";

export async function balanceOf(s: Services, { customer }: Principal) {
  const [ledger, plan, ports] = await Promise.all([
    s.ledger(customer.id).summary(),
    findPlan(s, customer.planCode),
    portsOf(s.db, customer),
  ]);
  if (!plan) throw new NotFound("Plan not found");
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

/** Namespace of the UUIDs shown for ledger entries whose internal key is not one ("analysis:<job>"). */
const LEDGER_ENTRY_NAMESPACE = "3f6d2b8a-0c4e-4d71-9a5b-7e2c1f8d6a40";

/** The spec's ids are UUIDs: an entry keyed otherwise inside the ledger shows a stable UUID v5 of its key. */
export const ledgerEntryId = (key: string) => (isUuid(key) ? key : uuidv5(key, LEDGER_ENTRY_NAMESPACE));

const entryOut = (e: LedgerEntry) => ({
  id: ledgerEntryId(e.id),
  type: e.type,
  amount: toUsd(e.amount_micros),
  balance_after: toUsd(e.balance_after_micros),
  call_id: e.call_id,
  description: e.description,
  waived_amount: toUsd(e.waived_micros),
  created_at: e.created_at,
});

export async function listLedger(s: Services, { customer }: Principal, params: PageParams) {
  const { total, items } = await s.ledger(customer.id).listEntries(params.limit, params.offset);
  return page(items.map(entryOut), total, params);
}
