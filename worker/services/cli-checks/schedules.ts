// Schedules: a CLI check or a route test (a test call) repeated hourly or daily on a destination.
// The first run starts when the schedule is made, the next ones at the cron's ticks once due; each
// run is an ordinary check or test call of the account (charged, capped and listed as such). When a
// run ends differently from the one before, the account is alerted (./schedule-outcomes.ts).
import { and, desc, eq, lte, sql } from "drizzle-orm";
import { cliSchedules } from "../../../schema/cli-checks.ts";
import { customers, users } from "../../../schema/identity.ts";
import { describeError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { CreateSchedule, UpdateSchedule } from "../../resources/cli-checks.ts";
import { MAX_TEST_SECONDS } from "../../resources/test-calls.ts";
import type { Services } from "../context.ts";
import { Forbidden, InvalidField } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import { owned, ownedRow } from "../owned.ts";
import { destinations } from "../../../schema/network.ts";
import { placedCallPolicyOf, requireAllowedNumber } from "../placed-calls/placed-calls.ts";
import { createTestCall, requireTestCallsEnabled } from "../placed-calls/test-calls.ts";
import { verifiedNumberOf } from "../placed-calls/verified-numbers.ts";
import { createCliCheck } from "./checks.ts";
import type { ScheduleRow } from "./schedule-outcomes.ts";

const INTERVAL_SECONDS = { hourly: 3600, daily: 86_400 } as const;
type Every = keyof typeof INTERVAL_SECONDS;

export function scheduleOut(row: ScheduleRow) {
  return {
    id: row.id,
    kind: row.kind as "cli_check" | "test_call",
    destination_id: row.destinationId,
    country: row.country,
    caller_id: row.callerId,
    number: row.number,
    every: row.every as Every,
    enabled: row.enabled,
    next_run_at: row.nextRunAt,
    last_run_id: row.lastRunId,
    last_run_at: row.lastRunAt,
    last_outcome: row.lastOutcome,
    previous_outcome: row.previousOutcome,
    created_at: row.createdAt,
  };
}

async function requireScheduleFields(s: Services, principal: Principal, input: CreateSchedule): Promise<void> {
  const customerId = principal.customer.id;
  await ownedRow(s.db, destinations, customerId, input.destination_id, "Destination");
  if (input.caller_id && !(await verifiedNumberOf(s, customerId, input.caller_id))) {
    throw new InvalidField(
      "caller_id",
      "caller_id_not_verified: prove you control the number first (verified numbers)",
      "caller_id_not_verified",
    );
  }
  if (input.kind === "cli_check") {
    if (!input.country) throw new InvalidField("country", "country is required for a cli_check schedule");
    if (input.number) throw new InvalidField("number", "number applies to test_call schedules only");
    return;
  }
  if (!input.number) throw new InvalidField("number", "number is required for a test_call schedule");
  if (input.country) throw new InvalidField("country", "country applies to cli_check schedules only");
  // An agent's test call rings only once a person confirms it: a schedule would ring unconfirmed.
  if (principal.via === "connector") throw new Forbidden("test_call_schedules_need_a_person: create it in the portal");
  requireAllowedNumber(await placedCallPolicyOf(s, customerId), input.number);
}

export async function createSchedule(s: Services, principal: Principal, input: CreateSchedule) {
  requireTestCallsEnabled(principal);
  await requireScheduleFields(s, principal, input);
  const now = nowIso();
  const row: ScheduleRow = {
    id: newId(),
    customerId: principal.customer.id,
    kind: input.kind,
    destinationId: input.destination_id,
    country: input.country ?? null,
    callerId: input.caller_id ?? null,
    number: input.number ?? null,
    every: input.every,
    enabled: true,
    nextRunAt: now,
    lastRunId: null,
    lastRunAt: null,
    lastOutcome: null,
    previousOutcome: null,
    createdAt: now,
    updatedAt: now,
  };
  await s.db.insert(cliSchedules).values(row);
  // The first run at once, as the account that asked: a refusal (no credit, a cap) is the answer, and no schedule is kept.
  try {
    return scheduleOut(await runSchedule(s, principal, row, now));
  } catch (err) {
    await s.db.delete(cliSchedules).where(eq(cliSchedules.id, row.id));
    throw err;
  }
}

export async function listSchedules(s: Services, principal: Principal, params: PageParams) {
  const where = eq(cliSchedules.customerId, principal.customer.id);
  const [rows, total] = await Promise.all([
    s.db
      .select()
      .from(cliSchedules)
      .where(where)
      .orderBy(desc(cliSchedules.createdAt), desc(cliSchedules.id))
      .limit(params.limit)
      .offset(params.offset),
    s.db.$count(cliSchedules, where),
  ]);
  return page(rows.map(scheduleOut), total, params);
}

export async function getSchedule(s: Services, principal: Principal, id: string) {
  return scheduleOut(await ownedRow(s.db, cliSchedules, principal.customer.id, id, "Schedule"));
}

export async function updateSchedule(s: Services, principal: Principal, id: string, input: UpdateSchedule) {
  const row = await ownedRow(s.db, cliSchedules, principal.customer.id, id, "Schedule");
  const every = input.every ?? (row.every as Every);
  const patch: Partial<ScheduleRow> = { updatedAt: nowIso() };
  if (input.enabled !== undefined) patch.enabled = input.enabled;
  if (input.every) {
    patch.every = every;
    patch.nextRunAt = addSeconds(row.lastRunAt ?? row.createdAt, INTERVAL_SECONDS[every]);
  }
  const [updated] = await s.db
    .update(cliSchedules)
    .set(patch)
    .where(owned(cliSchedules, principal.customer.id, id))
    .returning();
  return scheduleOut(updated!);
}

export async function deleteSchedule(s: Services, principal: Principal, id: string): Promise<void> {
  await ownedRow(s.db, cliSchedules, principal.customer.id, id, "Schedule");
  await s.db.delete(cliSchedules).where(owned(cliSchedules, principal.customer.id, id));
}

/**
 * One run: claimed by moving next_run_at on from the value read (two overlapping ticks never both
 * run it), then the check or test call placed as `principal`. The schedule after.
 */
async function runSchedule(s: Services, principal: Principal, row: ScheduleRow, now: string): Promise<ScheduleRow> {
  const claimed = await s.db
    .update(cliSchedules)
    .set({ nextRunAt: addSeconds(now, INTERVAL_SECONDS[row.every as Every]), updatedAt: now })
    .where(and(eq(cliSchedules.id, row.id), eq(cliSchedules.nextRunAt, row.nextRunAt)))
    .returning();
  if (!claimed.length) return row;
  const runId = await placeRun(s, principal, row);
  const [after] = await s.db
    .update(cliSchedules)
    .set({
      lastRunId: runId,
      lastRunAt: now,
      previousOutcome: sql`coalesce(${cliSchedules.lastOutcome}, ${cliSchedules.previousOutcome})`,
      lastOutcome: null,
      updatedAt: now,
    })
    .where(eq(cliSchedules.id, row.id))
    .returning();
  return after!;
}

async function placeRun(s: Services, principal: Principal, row: ScheduleRow): Promise<string> {
  if (row.kind === "cli_check") {
    const check = await createCliCheck(s, principal, {
      destination_id: row.destinationId,
      country: row.country!,
      ...(row.callerId ? { caller_id: row.callerId } : {}),
      schedule_id: row.id,
    });
    return check.id;
  }
  const call = await createTestCall(s, principal, {
    number: row.number!,
    destination_id: row.destinationId,
    ...(row.callerId ? { caller_id: row.callerId } : {}),
    seconds: Math.min(30, MAX_TEST_SECONDS),
    speech: "route_test",
  });
  return call.id;
}

/** Who a schedule's run acts as at a cron tick: the account's owner, named as the schedule in records. */
async function scheduleActor(s: Services, row: ScheduleRow): Promise<Principal | null> {
  const found = await s.db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(and(eq(users.customerId, row.customerId), eq(users.role, "owner"), eq(users.isActive, true)))
    .get();
  if (!found || found.customer.status === "suspended") return null;
  return { customer: found.customer, user: { ...found.user, name: `Schedule ${row.id}` }, via: "api_key", impersonatedBy: null };
}

/** The cron's tick: every enabled schedule that is due runs once; one that cannot (no credit, a cap) waits for its next turn. */
export async function runDueSchedules(s: Services, now: Date): Promise<void> {
  const at = now.toISOString();
  const due = await s.db
    .select()
    .from(cliSchedules)
    .where(and(eq(cliSchedules.enabled, true), lte(cliSchedules.nextRunAt, at)));
  for (const row of due) {
    const actor = await scheduleActor(s, row);
    if (!actor) continue;
    await runSchedule(s, actor, row, at).catch((err: unknown) => console.error(`schedule ${row.id}: run not placed`, describeError(err)));
  }
}
