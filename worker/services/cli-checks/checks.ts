// CLI checks: the platform places a short call through one of the account's destinations, with the
// caller ID to prove, to a number it holds in the country asked for; the hosted-number listener on a
// SIP node tells what arrived (./arrivals.ts). The call is a test call (purpose cli_check): admitted,
// charged by the minute and capped like any call the platform places. The check's fee is debited
// once when it is asked for and refunded when the platform could not place the call.
//
// The life of one: placing → (the arrival sets result and received) → completed once its test call
// ended, or failed (no node, refused at admission). A check whose call ended without arriving, or
// that has not arrived CLI_CHECK_TIMEOUT_SECONDS after it was asked for, is not_received.
import { and, desc, eq, isNull, type SQL } from "drizzle-orm";
import { cliChecks } from "../../../schema/cli-checks.ts";
import type { TestCallProgress } from "../../../schema/node-api.ts";
import { destinations } from "../../../schema/network.ts";
import { testCalls } from "../../../schema/test-calls.ts";
import { newId } from "../../lib/ids.ts";
import { toUsd } from "../../lib/money.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { CreateCliCheck } from "../../resources/cli-checks.ts";
import { toE164 } from "../../../schema/numbers.ts";
import type { Services } from "../context.ts";
import { InvalidField, PaymentRequired } from "../errors.ts";
import { requesterLabel, type Principal } from "../identity/principal.ts";
import { ownedRow } from "../owned.ts";
import { placedCallPolicyOf, requireAllowedNumber, takePlacedCall } from "../placed-calls/placed-calls.ts";
import { countTestCall, dispatchTestCall, newTestCallRow, type TestCallRow } from "../placed-calls/test-call-dispatch.ts";
import { requireTestCallsEnabled } from "../placed-calls/test-calls.ts";
import { verifiedNumberOf } from "../placed-calls/verified-numbers.ts";
import type { CliChange, CliResult } from "./compare.ts";
import { checkFeeMicros, numberForCheck } from "./coverage.ts";
import { countMiss } from "./hosted-numbers.ts";
import { cliCheckOutcome, scheduledRunEnded, testCallOutcome } from "./schedule-outcomes.ts";

export type CliCheckRow = typeof cliChecks.$inferSelect;

/** How long the check's call lasts at most once answered: the listener's tone ends it sooner. */
export const CHECK_CALL_SECONDS = 10;

/** A hosted number is shown to the account checking as its country code and last three digits only. */
const masked = (number: string) => `${number.slice(0, 3)}${"•".repeat(Math.max(0, number.length - 6))}${number.slice(-3)}`;

export function cliCheckOut(row: CliCheckRow, callId: string | null = null) {
  return {
    id: row.id,
    status: row.status as "placing" | "completed" | "failed",
    result: row.result as CliResult | null,
    change: row.change as CliChange | null,
    destination_id: row.destinationId,
    country: row.country,
    sent: { caller_id: row.callerId },
    received: row.arrivedAt
      ? {
          from: row.receivedFrom,
          display_name: row.receivedDisplay,
          asserted: row.receivedAsserted,
          privacy: row.receivedPrivacy ? row.receivedPrivacy.split(" ") : [],
          identity_present: row.identityPresent ?? false,
          arrived_at: row.arrivedAt,
        }
      : null,
    number_called: row.hostedNumberId ? masked(row.number) : row.number,
    hosted: row.hostedNumberId !== null,
    post_dial_delay_ms: row.postDialMs,
    answer_delay_ms: row.answerMs,
    mos: { sent: row.mosSent, received: row.mosReceived },
    sip_code: row.sipCode,
    sip_reason: row.sipReason,
    error: row.error,
    fee_usd: toUsd(row.feeMicros),
    test_call_id: row.testCallId,
    call_id: callId,
    schedule_id: row.scheduleId,
    created_by: row.createdBy,
    created_at: row.createdAt,
    completed_at: row.completedAt,
  };
}

/** The check as it reads now: a check whose test call has ended is settled as it is read. */
async function asRead(s: Services, row: CliCheckRow) {
  const testCall = await s.db.select().from(testCalls).where(eq(testCalls.id, row.testCallId)).get();
  const settled = row.status === "placing" && testCall ? ((await settle(s, row, testCall, new Date())) ?? row) : row;
  return cliCheckOut(settled, testCall?.callId ?? null);
}

/** The account's SIP destination the check goes out through (a voice-agent destination is no route). */
async function routeToTest(s: Services, customerId: string, destinationId: string) {
  const destination = await ownedRow(s.db, destinations, customerId, destinationId, "Destination");
  if (destination.kind === "voice_ai")
    throw new InvalidField("destination_id", "a CLI check goes out through a SIP destination, not a voice agent");
  return destination;
}

/** The caller ID to prove, in E.164: one of the account's verified numbers, else the platform's own. */
async function callerIdToProve(s: Services, customerId: string, callerId: string | undefined): Promise<string> {
  if (!callerId) return toE164(s.config.PLATFORM_CALLER_ID) ?? s.config.PLATFORM_CALLER_ID;
  if (!(await verifiedNumberOf(s, customerId, callerId))) {
    throw new InvalidField(
      "caller_id",
      "caller_id_not_verified: prove you control the number first (verified numbers)",
      "caller_id_not_verified",
    );
  }
  return toE164(callerId)!;
}

export type CheckRequest = CreateCliCheck & { schedule_id?: string };

export async function createCliCheck(s: Services, principal: Principal, input: CheckRequest) {
  requireTestCallsEnabled(principal);
  const customerId = principal.customer.id;
  const destination = await routeToTest(s, customerId, input.destination_id);
  const callerId = await callerIdToProve(s, customerId, input.caller_id);
  const target = await numberForCheck(s, input.country);
  if (!target)
    throw new InvalidField(
      "country",
      `cli_country_not_covered: no number takes checks in ${input.country} now (cli_coverage)`,
      "cli_country_not_covered",
    );
  const policy = await placedCallPolicyOf(s, customerId);
  requireAllowedNumber(policy, target.number, "country");
  await countTestCall(s, customerId);
  await takePlacedCall(s, customerId, policy);

  const id = newId();
  const now = nowIso();
  const feeMicros = checkFeeMicros(s);
  if (feeMicros > 0) {
    const charged = await s.ledger(customerId).debit({
      entryId: `cli-check:${id}`,
      type: "cli_check",
      amountMicros: feeMicros,
      description: `Caller-ID check to ${input.country} through ${destination.label ?? destination.host}`,
      createdAt: now,
    });
    if (!charged.ok) throw new PaymentRequired();
  }
  const createdBy = requesterLabel(principal);
  const testCall = newTestCallRow(
    {
      customerId,
      status: "queued",
      number: target.number,
      callerId: callerId === toE164(s.config.PLATFORM_CALLER_ID) && !input.caller_id ? null : callerId,
      destinationId: destination.id,
      seconds: CHECK_CALL_SECONDS,
      speech: "route_test",
      purpose: "cli_check",
      createdBy,
    },
    now,
  );
  const check: CliCheckRow = {
    id,
    customerId,
    destinationId: destination.id,
    country: input.country,
    callerId,
    number: target.number,
    hostedNumberId: target.hostedNumberId,
    testCallId: testCall.id,
    scheduleId: input.schedule_id ?? null,
    status: "placing",
    result: null,
    change: null,
    receivedFrom: null,
    receivedDisplay: null,
    receivedAsserted: null,
    receivedPrivacy: null,
    identityPresent: null,
    arrivedAt: null,
    postDialMs: null,
    answerMs: null,
    mosSent: null,
    mosReceived: null,
    sipCode: null,
    sipReason: null,
    error: null,
    feeMicros,
    createdBy,
    completedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await s.db.batch([s.db.insert(testCalls).values(testCall), s.db.insert(cliChecks).values(check)]);
  s.background(dispatchTestCall(s, testCall));
  return cliCheckOut(check);
}

export async function getCliCheck(s: Services, principal: Principal, id: string) {
  return asRead(s, await ownedRow(s.db, cliChecks, principal.customer.id, id, "CLI check"));
}

export async function listCliChecks(
  s: Services,
  principal: Principal,
  query: PageParams & { destination_id?: string; schedule_id?: string },
) {
  const conditions: SQL[] = [eq(cliChecks.customerId, principal.customer.id)];
  if (query.destination_id) conditions.push(eq(cliChecks.destinationId, query.destination_id));
  if (query.schedule_id) conditions.push(eq(cliChecks.scheduleId, query.schedule_id));
  const where = and(...conditions);
  const [rows, total] = await Promise.all([
    s.db
      .select()
      .from(cliChecks)
      .where(where)
      .orderBy(desc(cliChecks.createdAt), desc(cliChecks.id))
      .limit(query.limit)
      .offset(query.offset),
    s.db.$count(cliChecks, where),
  ]);
  return page(await Promise.all(rows.map((row) => asRead(s, row))), total, query);
}

/** The check a test call places, if it is one. */
export const checkOfTestCall = (s: Services, testCallId: string) =>
  s.db.select().from(cliChecks).where(eq(cliChecks.testCallId, testCallId)).get();

/** Moves a check on, only if it is still placing; the row after, or null. */
async function finish(s: Services, id: string, patch: Partial<CliCheckRow>): Promise<CliCheckRow | null> {
  const now = nowIso();
  const [row] = await s.db
    .update(cliChecks)
    .set({ ...patch, completedAt: now, updatedAt: now })
    .where(and(eq(cliChecks.id, id), eq(cliChecks.status, "placing")))
    .returning();
  if (row?.scheduleId) await scheduledRunEnded(s, row.id, cliCheckOutcome(row));
  return row ?? null;
}

/**
 * A node's progress of a test call: for a check's, the call's timing and quality are copied, and
 * the check settles once the call ended.
 */
export async function testCallProgressed(s: Services, testCallId: string, progress: TestCallProgress): Promise<void> {
  const check = await checkOfTestCall(s, testCallId);
  if (!check) {
    // A scheduled route test's outcome, once it ended.
    const testCall = await s.db.select().from(testCalls).where(eq(testCalls.id, testCallId)).get();
    if (testCall) await scheduledRunEnded(s, testCall.id, testCallOutcome(testCall));
    return;
  }
  const timing: Partial<CliCheckRow> = {};
  if (progress.post_dial_ms != null) timing.postDialMs = progress.post_dial_ms;
  if (progress.answer_ms != null) {
    timing.answerMs = progress.answer_ms;
    // Answered with no ringing first: the post-dial delay ends with the answer.
    if (check.postDialMs === null && progress.post_dial_ms == null) timing.postDialMs = progress.answer_ms;
  }
  if (progress.mos_received != null) timing.mosReceived = progress.mos_received;
  if (Object.keys(timing).length) await s.db.update(cliChecks).set(timing).where(eq(cliChecks.id, check.id));
  const testCall = await s.db.select().from(testCalls).where(eq(testCalls.id, testCallId)).get();
  if (testCall) await settleFromTestCall(s, { ...check, ...timing }, testCall);
}

/**
 * Once its test call ended, a check completes (not_received when nothing arrived), or fails when
 * the platform could not place the call, its fee refunded. The row after, or null (not settled now).
 */
async function settleFromTestCall(s: Services, check: CliCheckRow, testCall: TestCallRow): Promise<CliCheckRow | null> {
  if (check.status !== "placing" || !["done", "failed", "cancelled"].includes(testCall.status)) return null;
  const sip = { sipCode: testCall.sipCode, sipReason: testCall.sipReason };
  if (check.arrivedAt) return finish(s, check.id, { ...sip, status: "completed" });
  if (platformFailed(testCall)) {
    const failed = await finish(s, check.id, { ...sip, status: "failed", error: testCall.error ?? testCall.sipReason ?? "not_placed" });
    if (failed) await refundFee(s, failed);
    return failed;
  }
  return notReceived(s, check.id, sip);
}

/** The call never left the platform (no node, refused at admission) rather than failed on the route. */
const platformFailed = (t: TestCallRow) => t.status === "failed" && !t.answered && t.endedBy !== "callee" && t.endedBy !== "timeout";

async function notReceived(s: Services, id: string, patch: Partial<CliCheckRow> = {}) {
  const done = await finish(s, id, { ...patch, status: "completed", result: "not_received" });
  if (done?.hostedNumberId) await countMiss(s, done.hostedNumberId, nowIso());
  return done;
}

async function refundFee(s: Services, check: CliCheckRow) {
  if (check.feeMicros <= 0) return;
  await s.ledger(check.customerId).refund({
    entryId: `cli-check-refund:${check.id}`,
    ofEntryId: `cli-check:${check.id}`,
    type: "cli_check_refund",
    description: "Caller-ID check not placed",
    createdAt: nowIso(),
  });
}

/**
 * A check still placing settles from its test call when that ended (a dispatch that failed reports
 * no progress); CLI_CHECK_TIMEOUT_SECONDS after it was asked for it completes anyway: not_received
 * when nothing arrived. The row after, or null (still placing).
 */
async function settle(s: Services, check: CliCheckRow, testCall: TestCallRow, now: Date): Promise<CliCheckRow | null> {
  const settled = await settleFromTestCall(s, check, testCall);
  if (settled || check.createdAt > addSeconds(now.toISOString(), -s.config.CLI_CHECK_TIMEOUT_SECONDS)) return settled;
  return check.arrivedAt ? finish(s, check.id, { status: "completed" }) : notReceived(s, check.id, { error: "timeout" });
}

/** The cron's sweep of checks still placing. */
export async function sweepCliChecks(s: Services, now: Date): Promise<void> {
  const placing = await s.db
    .select({ check: cliChecks, testCall: testCalls })
    .from(cliChecks)
    .innerJoin(testCalls, eq(testCalls.id, cliChecks.testCallId))
    .where(eq(cliChecks.status, "placing"));
  for (const { check, testCall } of placing) await settle(s, check, testCall, now);
}

/** A check in flight to `number` that nothing has arrived for: the one whose Call-ID came through, else the oldest. */
export async function checkAwaitingArrival(s: Services, number: string, sipCallId: string): Promise<CliCheckRow | undefined> {
  const waiting = await s.db
    .select({ check: cliChecks, sipCallId: testCalls.sipCallId })
    .from(cliChecks)
    .innerJoin(testCalls, eq(testCalls.id, cliChecks.testCallId))
    .where(and(eq(cliChecks.status, "placing"), eq(cliChecks.number, number), isNull(cliChecks.arrivedAt)))
    .orderBy(cliChecks.createdAt);
  return (waiting.find((w) => w.sipCallId === sipCallId) ?? waiting[0])?.check;
}
