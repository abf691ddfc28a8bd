// Automation: rules that turn a verdict into a controlled number (block or divert the calling
// ANI), and the controls themselves. Controls are the record admission honours: an active control
// (not released, not expired) refuses the caller's next INVITE or diverts it. Every write that
// changes them ends with syncAdmissionState, so the account's Durable Object holds them too.
import { and, asc, count, desc, eq, gt, isNull, lte, or, type SQL } from "drizzle-orm";
import { aniControls, automationRules } from "../../../schema/automation.ts";
import { newId } from "../../lib/ids.ts";
import { digitsOf } from "../../../schema/numbers.ts";
import type { IdentityStatus, RuleName } from "../../../schema/screening.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import {
  MAX_AUTOMATION_RULES,
  type ControlsFilter,
  type CreateAutomationRule,
  type UpdateAutomationRule,
} from "../../resources/automation.ts";
import { syncAdmissionState } from "./admission-state.ts";
import type { Services } from "../context.ts";
import { requireOwnDestination } from "./destinations.ts";
import { Conflict, InvalidField, NotFound } from "../errors.ts";
import { owned, ownedRow } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";
import type { VerdictEvent, VerdictListener } from "../analysis/verdicts.ts";
import { meetsScreeningConditions } from "../calls/screening.ts";

type RuleRow = typeof automationRules.$inferSelect;

/** An empty list is no condition, stored as null like an absent one. */
const orNull = <T>(list: T[] | null | undefined) => (list && list.length > 0 ? [...new Set(list)] : null);
type ControlRow = typeof aniControls.$inferSelect;

const ruleOut = (row: RuleRow) => ({
  id: row.id,
  name: row.name,
  enabled: row.enabled,
  min_probability: row.minProbability,
  recommendations: row.recommendations,
  identity_statuses: row.identityStatuses as IdentityStatus[] | null,
  screening_rules: row.screeningRules as RuleName[] | null,
  action: row.action as "block" | "divert",
  divert_destination_id: row.divertDestinationId,
  duration_hours: row.durationHours,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

export const controlOut = (row: ControlRow) => ({
  id: row.id,
  ani: row.ani,
  action: row.action as "block" | "divert",
  divert_destination_id: row.divertDestinationId,
  reason: row.reason,
  expires_at: row.expiresAt,
  released_at: row.releasedAt,
  created_at: row.createdAt,
  rule_id: row.ruleId,
  call_id: row.callId,
});

export type ControlOut = ReturnType<typeof controlOut>;

// ---------------------------------------------------------------------------------------------
// Rules

export async function listAutomationRules({ db }: Services, principal: Principal) {
  const rows = await db
    .select()
    .from(automationRules)
    .where(eq(automationRules.customerId, principal.customer.id))
    .orderBy(asc(automationRules.createdAt), asc(automationRules.id));
  return rows.map(ruleOut);
}

const findRule = ({ db }: Services, customerId: string, ruleId: string) =>
  ownedRow(db, automationRules, customerId, ruleId, "automation rule").catch((err: unknown) => {
    // The spec's wording, lower case: "404 automation rule not found".
    throw err instanceof NotFound ? new NotFound("automation rule not found") : err;
  });

/** A divert needs a destination of the account's own; a block keeps none. */
async function divertTarget(s: Services, customerId: string, action: string, destinationId: string | null | undefined) {
  if (action !== "divert") return null;
  if (!destinationId) throw new InvalidField("divert_destination_id", "divert_destination_id is required when action is 'divert'");
  await requireOwnDestination(s, customerId, destinationId).catch((err: unknown) => {
    throw err instanceof NotFound ? new NotFound("divert destination not found") : err;
  });
  return destinationId;
}

export async function createAutomationRule(s: Services, principal: Principal, input: CreateAutomationRule) {
  const customerId = principal.customer.id;
  const divertDestinationId = await divertTarget(s, customerId, input.action, input.divert_destination_id);
  const [{ n }] = (await s.db.select({ n: count() }).from(automationRules).where(eq(automationRules.customerId, customerId))) as [
    { n: number },
  ];
  if (n >= MAX_AUTOMATION_RULES) throw new Conflict("Maximum number of automation rules reached");
  const now = nowIso();
  const row: RuleRow = {
    id: newId(),
    customerId,
    name: input.name,
    enabled: input.enabled,
    minProbability: input.min_probability,
    recommendations: input.recommendations,
    identityStatuses: orNull(input.identity_statuses),
    screeningRules: orNull(input.screening_rules),
    action: input.action,
    divertDestinationId,
    durationHours: input.duration_hours ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await s.db.insert(automationRules).values(row);
  return ruleOut(row);
}

export async function updateAutomationRule(s: Services, principal: Principal, ruleId: string, input: UpdateAutomationRule) {
  const customerId = principal.customer.id;
  const row = await findRule(s, customerId, ruleId);
  if (input.clear_duration && input.duration_hours != null) {
    throw new InvalidField("duration_hours", "duration_hours cannot be set while clear_duration is true");
  }
  const action = input.action ?? row.action;
  const wantedDestination = input.divert_destination_id !== undefined ? input.divert_destination_id : row.divertDestinationId;
  const changes: Partial<RuleRow> = { updatedAt: nowIso() };
  if (input.action !== undefined || input.divert_destination_id !== undefined) {
    changes.action = action;
    changes.divertDestinationId = await divertTarget(s, customerId, action, wantedDestination);
  }
  if (input.name !== undefined) changes.name = input.name;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.min_probability !== undefined) changes.minProbability = input.min_probability;
  if (input.recommendations !== undefined) changes.recommendations = input.recommendations;
  if (input.identity_statuses !== undefined) changes.identityStatuses = orNull(input.identity_statuses);
  if (input.screening_rules !== undefined) changes.screeningRules = orNull(input.screening_rules);
  if (input.duration_hours !== undefined) changes.durationHours = input.duration_hours;
  if (input.clear_duration) changes.durationHours = null;
  await s.db
    .update(automationRules)
    .set(changes)
    .where(owned(automationRules, customerId, row.id));
  return ruleOut({ ...row, ...changes });
}

/** The controls a rule made stay until released or expired: they are actions already taken. */
export async function deleteAutomationRule(s: Services, principal: Principal, ruleId: string): Promise<void> {
  const row = await findRule(s, principal.customer.id, ruleId);
  await s.db.delete(automationRules).where(owned(automationRules, principal.customer.id, row.id));
}

// ---------------------------------------------------------------------------------------------
// Controlled numbers

/** Not released and not expired at `now`: what admission honours. */
const activeAt = (now: string): SQL =>
  and(isNull(aniControls.releasedAt), or(isNull(aniControls.expiresAt), gt(aniControls.expiresAt, now)))!;

export async function listControls({ db }: Services, principal: Principal, filter: ControlsFilter & PageParams) {
  const where = and(eq(aniControls.customerId, principal.customer.id), filter.include_released ? undefined : activeAt(nowIso()));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(aniControls)
      .where(where)
      .orderBy(desc(aniControls.createdAt), desc(aniControls.id))
      .limit(filter.limit)
      .offset(filter.offset),
    db.select({ n: count() }).from(aniControls).where(where),
  ]);
  return page(rows.map(controlOut), total?.n ?? 0, filter);
}

export async function releaseControl(s: Services, principal: Principal, controlId: string) {
  const customerId = principal.customer.id;
  const row = await ownedRow(s.db, aniControls, customerId, controlId, "control").catch((err: unknown) => {
    throw err instanceof NotFound ? new NotFound("control not found") : err;
  });
  if (row.releasedAt) throw new Conflict("control already released");
  // Conditional, so two releases at once cannot both succeed.
  const released = await s.db
    .update(aniControls)
    .set({ releasedAt: nowIso() })
    .where(and(owned(aniControls, customerId, row.id), isNull(aniControls.releasedAt)))
    .returning()
    .get();
  if (!released) throw new Conflict("control already released");
  await syncAdmissionState(s, customerId);
  return controlOut(released);
}

/** The account's active control of a calling number, if any. */
async function activeControlOf(s: Services, customerId: string, ani: string): Promise<ControlRow | undefined> {
  return s.db
    .select()
    .from(aniControls)
    .where(and(eq(aniControls.customerId, customerId), eq(aniControls.ani, ani), activeAt(nowIso())))
    .orderBy(desc(aniControls.createdAt))
    .get();
}

// ---------------------------------------------------------------------------------------------
// The verdict listener

const matches = (rule: RuleRow, event: VerdictEvent) =>
  rule.enabled &&
  event.verdict.probability >= rule.minProbability &&
  (!rule.recommendations?.length || rule.recommendations.includes(event.verdict.recommendation)) &&
  meetsScreeningConditions(rule, event.call.screening);

/** Of several matching rules the strictest acts: block before divert, then the higher threshold, then the older rule. */
const strictestFirst = (a: RuleRow, b: RuleRow) =>
  (a.action === "block" ? 0 : 1) - (b.action === "block" ? 0 : 1) ||
  b.minProbability - a.minProbability ||
  a.createdAt.localeCompare(b.createdAt);

/** The verdict, and what of the screening the rule asked for. */
function reasonOf(rule: RuleRow, event: VerdictEvent): string {
  const verdict = `probability ${event.verdict.probability}, recommendation ${event.verdict.recommendation} (${event.verdict.category})`;
  const screening = event.call.screening;
  const said = [
    rule.identityStatuses?.length ? `caller ID ${screening?.identity_status}` : "",
    ...(rule.screeningRules?.length
      ? (screening?.screening?.flags ?? []).filter((f) => rule.screeningRules!.includes(f.rule)).map((f) => f.rule)
      : []),
  ].filter(Boolean);
  return `Rule '${rule.name}': ${verdict}${said.length ? `; screening: ${said.join(", ")}` : ""}`;
}

export type ControlCreated = { control: ControlOut; event: VerdictEvent };

/**
 * A verdict that matches one of the account's enabled rules puts the caller's number under
 * control, unless it is already under an active control (the first one stands). Calls without
 * a calling number are left alone. Returns the new control, or null.
 */
export async function controlFromVerdict(s: Services, event: VerdictEvent): Promise<ControlOut | null> {
  const ani = event.call.ani ? digitsOf(event.call.ani) : "";
  if (!ani) return null;
  const rules = await s.db.select().from(automationRules).where(eq(automationRules.customerId, event.customerId));
  const rule = rules.filter((r) => matches(r, event)).sort(strictestFirst)[0];
  if (!rule) return null;
  if (await activeControlOf(s, event.customerId, ani)) return null;
  const now = nowIso();
  const row: ControlRow = {
    id: newId(),
    customerId: event.customerId,
    ani,
    action: rule.action,
    divertDestinationId: rule.action === "divert" ? rule.divertDestinationId : null,
    reason: reasonOf(rule, event),
    ruleId: rule.id,
    callId: event.callId,
    expiresAt: rule.durationHours ? addSeconds(now, rule.durationHours * 3600) : null,
    releasedAt: null,
    createdAt: now,
  };
  await s.db.insert(aniControls).values(row);
  await syncAdmissionState(s, event.customerId);
  return controlOut(row);
}

/** Automation's place at the verdict seam; `onControl` hears of each new control (the webhook). */
export function automationListener(s: Services, onControl?: (created: ControlCreated) => Promise<void>): VerdictListener {
  return {
    name: "automation",
    async onVerdict(event) {
      const control = await controlFromVerdict(s, event);
      if (control && onControl) await onControl({ control, event });
    },
  };
}

/**
 * Cron: accounts whose controls lapsed since the last tick get their admission state brought up
 * to date (admission also compares expires_at itself, so a late tick never lets a control outlive
 * its time; this only drops lapsed controls from the state the Durable Object holds).
 */
export async function syncLapsedControls(s: Services, now: Date, windowMinutes = 10): Promise<number> {
  const since = new Date(now.getTime() - windowMinutes * 60_000).toISOString();
  const rows = await s.db
    .selectDistinct({ customerId: aniControls.customerId })
    .from(aniControls)
    .where(and(isNull(aniControls.releasedAt), gt(aniControls.expiresAt, since), lte(aniControls.expiresAt, now.toISOString())));
  for (const { customerId } of rows) await syncAdmissionState(s, customerId);
  return rows.length;
}
