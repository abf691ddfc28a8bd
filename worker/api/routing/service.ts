// Prefix routing: which destination a call goes to when its whitelist entry names none. Admission
// takes the enabled rule with the longest prefix matching the dialed number, then the lowest
// priority value; the list is returned in that order.
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { routingRules } from "../../../schema/network.ts";
import { isUniqueViolation, type Db } from "../../lib/db.ts";
import { conflict, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { requireOwnDestination } from "../whitelist/service.ts";
import type { CreateRoutingRule, UpdateRoutingRule } from "./schemas.ts";

export const RULE_NOT_FOUND = "Routing rule not found";

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

export async function listRoutingRules(db: Db, customerId: string) {
  const rows = await db
    .select()
    .from(routingRules)
    .where(eq(routingRules.customerId, customerId))
    .orderBy(desc(prefixDigits), asc(routingRules.priority), asc(routingRules.createdAt), asc(routingRules.id));
  return rows.map(ruleOut);
}

async function findRule(db: Db, customerId: string, ruleId: string): Promise<RuleRow> {
  const row = await db
    .select()
    .from(routingRules)
    .where(and(eq(routingRules.id, ruleId), eq(routingRules.customerId, customerId)))
    .get();
  if (!row) throw notFound(RULE_NOT_FOUND);
  return row;
}

export async function createRoutingRule(db: Db, customerId: string, input: CreateRoutingRule) {
  await requireOwnDestination(db, customerId, input.destination_id);
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
    if (isUniqueViolation(err)) throw conflict("Conflict");
    throw err;
  }
  return ruleOut(row);
}

export async function updateRoutingRule(db: Db, customerId: string, ruleId: string, input: UpdateRoutingRule) {
  const row = await findRule(db, customerId, ruleId);
  if (input.destination_id !== undefined) await requireOwnDestination(db, customerId, input.destination_id);
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
      .where(and(eq(routingRules.id, row.id), eq(routingRules.customerId, customerId)));
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("Conflict");
    throw err;
  }
  return ruleOut({ ...row, ...changes });
}

export async function deleteRoutingRule(db: Db, customerId: string, ruleId: string): Promise<void> {
  const row = await findRule(db, customerId, ruleId);
  await db.delete(routingRules).where(and(eq(routingRules.id, row.id), eq(routingRules.customerId, customerId)));
}
