// Prefix routing: which destination a call goes to when its whitelist entry names none. Admission
// takes the enabled rule with the longest prefix matching the dialed number, then the lowest
// priority value; the list is returned in that order.
import { asc, desc, eq, sql } from "drizzle-orm";
import { routingRules } from "../../../schema/network.ts";
import { isUniqueViolation } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { CreateRoutingRule, UpdateRoutingRule } from "../../resources/routing.ts";
import { syncAdmissionState } from "./admission-state.ts";
import type { Services } from "../context.ts";
import { requireOwnDestination } from "./destinations.ts";
import { Conflict } from "../errors.ts";
import { owned, ownedRow } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";

type RuleRow = typeof routingRules.$inferSelect;

const ruleOut = (row: RuleRow) => ({
  id: row.id,
  prefix: row.prefix,
  destination_id: row.destinationId,
  enabled: row.enabled,
  priority: row.priority,
  label: row.label,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const labelOf = (label: string | null | undefined) => (label ? label : null);

/** Digits of the prefix, the "+" not counted: "+4930" and "4930" are equally long. */
const prefixDigits = sql`length(replace(${routingRules.prefix}, '+', ''))`;

export async function listRoutingRules({ db }: Services, principal: Principal) {
  const rows = await db
    .select()
    .from(routingRules)
    .where(eq(routingRules.customerId, principal.customer.id))
    .orderBy(desc(prefixDigits), asc(routingRules.priority), asc(routingRules.createdAt), asc(routingRules.id));
  return rows.map(ruleOut);
}

const findRule = ({ db }: Services, customerId: string, ruleId: string) => ownedRow(db, routingRules, customerId, ruleId, "Routing rule");

export async function createRoutingRule(s: Services, principal: Principal, input: CreateRoutingRule) {
  const { db } = s;
  const customerId = principal.customer.id;
  await requireOwnDestination(s, customerId, input.destination_id);
  const now = nowIso();
  const row: RuleRow = {
    id: newId(),
    customerId,
    prefix: input.prefix,
    destinationId: input.destination_id,
    enabled: input.enabled,
    priority: input.priority,
    label: labelOf(input.label),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.insert(routingRules).values(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict();
    throw err;
  }
  await syncAdmissionState(s, principal.customer.id);
  return ruleOut(row);
}

export async function updateRoutingRule(s: Services, principal: Principal, ruleId: string, input: UpdateRoutingRule) {
  const { db } = s;
  const customerId = principal.customer.id;
  const row = await findRule(s, customerId, ruleId);
  if (input.destination_id !== undefined) await requireOwnDestination(s, customerId, input.destination_id);
  const changes: Partial<RuleRow> = { updatedAt: nowIso() };
  if (input.prefix !== undefined) changes.prefix = input.prefix;
  if (input.destination_id !== undefined) changes.destinationId = input.destination_id;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.priority !== undefined) changes.priority = input.priority;
  if (input.label !== undefined) changes.label = labelOf(input.label);
  try {
    await db
      .update(routingRules)
      .set(changes)
      .where(owned(routingRules, customerId, row.id));
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict();
    throw err;
  }
  await syncAdmissionState(s, principal.customer.id);
  return ruleOut({ ...row, ...changes });
}

export async function deleteRoutingRule(s: Services, principal: Principal, ruleId: string): Promise<void> {
  const row = await findRule(s, principal.customer.id, ruleId);
  await s.db.delete(routingRules).where(owned(routingRules, principal.customer.id, row.id));
  await syncAdmissionState(s, principal.customer.id);
}
