// Test calls: the platform dials a number through one of the account's destinations, plays an
// announcement and a speech sample, and screens the call like any other (its call record has
// origin "test" and is charged through the ledger). A request made with an AI connector token
// waits (awaiting_confirm) until a person confirms it in the portal within ten minutes.
//
// The life of one: queued → the Worker sends `originate` to a SIP node through the NodeHub →
// dialing once a node took it → the node admits the call (POST /internal/calls/admit, origin
// test) and reports its progress (POST /internal/test-calls/{id}/progress): ringing, answered,
// done or failed. cancelled and expired are the account's and the clock's. A state never goes
// back: a late or repeated report of an earlier step is ignored.
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import type { AdmissionRejection, TestCallProgress, TestCallStatus } from "../../../schema/node-api.ts";
import { calls } from "../../../schema/calls.ts";
import { ENDED_CALL_STATUSES, isLiveCallStatus } from "../../../schema/enums.ts";
import { destinations } from "../../../schema/network.ts";
import { testCalls } from "../../../schema/test-calls.ts";
import { d1Chunks } from "../../lib/db.ts";
import { describeError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { normalizeNumber } from "../../../schema/numbers.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { CreateTestCall } from "../../resources/test-calls.ts";
import { callOfAccount } from "../calls/records.ts";
import type { Services } from "../context.ts";
import { Conflict, Forbidden, InvalidField, NotFound } from "../errors.ts";
import { owned, ownedRow, ownedRowsNewestFirst } from "../owned.ts";
import { actingLabel, isPortalSession, requesterLabel, type Principal } from "../identity/principal.ts";
import { placedCallPolicyOf, requireAllowedNumber, takePlacedCall } from "./placed-calls.ts";
import { verifiedNumberOf } from "./verified-numbers.ts";
import { advance, countTestCall, dispatchTestCall, newTestCallRow, ORIGINATE_TIMEOUT_MS, type TestCallRow } from "./test-call-dispatch.ts";

/** How long a connector's request waits for a person's confirmation. */
export const CONFIRM_WINDOW_SECONDS = 600;

/** Where each status stands: a report moves a test call only forward. */
const RANK: Record<TestCallStatus, number> = {
  awaiting_confirm: 0,
  queued: 1,
  dialing: 2,
  ringing: 3,
  answered: 4,
  done: 5,
  failed: 5,
  cancelled: 5,
  expired: 5,
};
export const FINAL: TestCallStatus[] = ["done", "failed", "cancelled", "expired"];
/** The states in which a SIP node is (or may be) placing the call. */
const PLACING: TestCallStatus[] = ["dialing", "ringing", "answered"];

export function testCallOut(row: TestCallRow) {
  return {
    id: row.id,
    status: row.status as TestCallStatus,
    number: row.number,
    caller_id: row.callerId,
    destination_id: row.destinationId,
    seconds: row.seconds,
    speech: row.speech,
    sip_call_id: row.sipCallId,
    call_id: row.callId,
    agent_destination_id: row.agentDestinationId,
    instruction: row.instruction,
    agent_sip_call_id: row.agentSipCallId,
    agent_call_id: row.agentCallId,
    answered: row.answered,
    sip_code: row.sipCode,
    sip_reason: row.sipReason,
    talk_seconds: row.talkSeconds,
    ended_by: row.endedBy,
    error: row.error,
    purpose: row.purpose,
    created_by: row.createdBy,
    confirmed_at: row.confirmedAt,
    confirmed_by: row.confirmedBy,
    confirm_url: row.status === "awaiting_confirm" ? row.confirmUrl : null,
    confirm_expires_at: row.confirmExpiresAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const findTestCall = (s: Services, customerId: string, id: string) => ownedRow(s.db, testCalls, customerId, id, "test call");

/** Newest first. */
export async function listTestCalls(s: Services, principal: Principal) {
  const rows = await ownedRowsNewestFirst(s.db, testCalls, principal.customer.id);
  const ended = await endedCalls(s, principal.customer.id, rows);
  return Promise.all(rows.map(async (row) => testCallOut(ended.has(row.callId!) ? row : await asRead(s, principal, row))));
}

export async function getTestCall(s: Services, principal: Principal, id: string) {
  return testCallOut(await asRead(s, principal, await findTestCall(s, principal.customer.id, id)));
}

/**
 * A test call as it reads: `done` only once its call reads ended (GET /calls/{call_id}). The node
 * posts done before its batched report of the call's end has reached the account's ledger: until
 * then the call is up there, and the test call reads `answered`. A call the ledger has ended is
 * brought to D1 as it is read (callOfAccount), so the two agree the moment the test call is done.
 * A call found nowhere (no record kept), or that cannot be read now, does not hold the test call back.
 */
async function asRead(s: Services, principal: Principal, row: TestCallRow): Promise<TestCallRow> {
  if (row.status !== "done" || !row.callId) return row;
  const call = await callOfAccount(s, principal, row.callId).catch((err: unknown) => {
    if (!(err instanceof NotFound)) console.error("test calls: the call of a done test call could not be read", describeError(err));
    return null;
  });
  return call && isLiveCallStatus(call.status) ? { ...row, status: "answered" } : row;
}

/** The calls of done test calls that D1 already shows ended (one read for a page): those read done as stored. */
async function endedCalls(s: Services, customerId: string, rows: TestCallRow[]): Promise<Set<string>> {
  const ids = rows.flatMap((row) => (row.status === "done" && row.callId ? [row.callId] : []));
  const found = new Set<string>();
  for (const slice of d1Chunks(ids, 1, 1 + ENDED_CALL_STATUSES.length)) {
    const ended = await s.db
      .select({ id: calls.id })
      .from(calls)
      .where(and(eq(calls.customerId, customerId), inArray(calls.id, slice), inArray(calls.status, ENDED_CALL_STATUSES)));
    for (const call of ended) found.add(call.id);
  }
  return found;
}

export function requireTestCallsEnabled(principal: Principal): void {
  if (!principal.customer.testCallsEnabled) throw new Forbidden("test_calls_disabled");
}

/** The destination a test call goes out through: the one named (the account's own), else the default. */
async function routeDestination(s: Services, customerId: string, destinationId: string | undefined): Promise<string> {
  if (destinationId) return (await ownedRow(s.db, destinations, customerId, destinationId, "Destination")).id;
  const fallback = await s.db
    .select({ id: destinations.id })
    .from(destinations)
    .where(and(eq(destinations.customerId, customerId), eq(destinations.isDefault, true)))
    .get();
  if (!fallback) throw new Conflict("Add a destination before placing a test call");
  return fallback.id;
}

/** The account's voice_ai destination, or undefined (another account's, a SIP one, one deleted). */
export async function agentDestinationOf(s: Services, customerId: string, destinationId: string) {
  const row = await s.db
    .select()
    .from(destinations)
    .where(owned(destinations, customerId, destinationId))
    .get();
  return row?.kind === "voice_ai" ? row : undefined;
}

async function requireAgentDestination(s: Services, customerId: string, destinationId: string): Promise<void> {
  if (!(await agentDestinationOf(s, customerId, destinationId))) throw new NotFound("Voice agent destination not found");
}

type VerifiedParts = { callerId: string | null; number: string; speech: string; agentDestinationId: string | null };

/**
 * What a test call needs verified and is not (caller_id_not_verified, number_not_verified), or
 * null: checked at creation, at confirmation and again as the call is admitted, since another
 * account may have taken the number over meanwhile.
 */
export async function unverifiedPart(s: Services, customerId: string, call: VerifiedParts) {
  if (call.callerId && !(await verifiedNumberOf(s, customerId, call.callerId))) return "caller_id_not_verified" as const;
  if ((call.speech === "scam_sample" || call.agentDestinationId) && !(await verifiedNumberOf(s, customerId, call.number))) {
    return "number_not_verified" as const;
  }
  return null;
}

async function requireVerified(s: Services, customerId: string, call: VerifiedParts) {
  const missing = await unverifiedPart(s, customerId, call);
  if (missing) throw new InvalidField(missing === "caller_id_not_verified" ? "caller_id" : "number", missing, missing);
}

const confirmUrl = (s: Services, id: string) => `${s.config.PORTAL_ORIGIN ?? s.origin}/app/test-calls/${id}/confirm`;

export async function createTestCall(s: Services, principal: Principal, input: CreateTestCall) {
  requireTestCallsEnabled(principal);
  const customerId = principal.customer.id;
  if (input.instruction !== undefined && !input.agent_destination_id) {
    throw new InvalidField("instruction", "instruction applies to voice-agent mode (agent_destination_id) only");
  }
  const destinationId = await routeDestination(s, customerId, input.destination_id);
  if (input.agent_destination_id) await requireAgentDestination(s, customerId, input.agent_destination_id);
  const call = {
    callerId: input.caller_id ? normalizeNumber(input.caller_id) : null,
    number: normalizeNumber(input.number),
    speech: input.speech,
    agentDestinationId: input.agent_destination_id ?? null,
  };
  await requireVerified(s, customerId, call);
  const policy = await placedCallPolicyOf(s, customerId);
  requireAllowedNumber(policy, call.number);
  await countTestCall(s, customerId);
  await takePlacedCall(s, customerId, policy);

  const id = newId();
  const now = nowIso();
  // An AI agent's request rings nothing until a person confirms it in the portal.
  const needsPerson = principal.via === "connector";
  const row = newTestCallRow(
    {
      id,
      customerId,
      status: needsPerson ? "awaiting_confirm" : "queued",
      ...call,
      destinationId,
      seconds: input.seconds,
      instruction: input.instruction ?? null,
      purpose: "test",
      createdBy: requesterLabel(principal),
      confirmUrl: needsPerson ? confirmUrl(s, id) : null,
      confirmExpiresAt: needsPerson ? addSeconds(now, CONFIRM_WINDOW_SECONDS) : null,
    },
    now,
  );
  await s.db.insert(testCalls).values(row);
  if (!needsPerson) s.background(dispatchTestCall(s, row));
  return testCallOut(row);
}

/**
 * Withdraws a test call. One not placed yet (awaiting_confirm, queued) never rings: a node that
 * took a queued one meanwhile is refused at admission. One a node is placing is cancelled there
 * (cancel_test_call) and ends as cancelled whatever the node reports after. An ended one stays.
 */
export async function cancelTestCall(s: Services, principal: Principal, id: string) {
  const row = await findTestCall(s, principal.customer.id, id);
  const status = row.status as TestCallStatus;
  if (FINAL.includes(status)) return testCallOut(await asRead(s, principal, row));
  const moved = await advance(s, row, { status: "cancelled", endedBy: "cancel" });
  // A queued one a node already admitted (before the hub's reply made it dialing) is being placed too.
  if (PLACING.includes(status) || (status === "queued" && row.nodeId)) {
    s.background(s.hub.command({ type: "cancel_test_call", test_call_id: row.id }, ORIGINATE_TIMEOUT_MS, row.nodeId ?? undefined));
  }
  return testCallOut(moved ?? (await findTestCall(s, principal.customer.id, id)));
}

/** A person in the portal lets an AI agent's test call ring, within ten minutes of the request. */
export async function confirmTestCall(s: Services, principal: Principal, id: string) {
  if (!isPortalSession(principal)) throw new Forbidden("portal_session_required");
  requireTestCallsEnabled(principal);
  const row = await findTestCall(s, principal.customer.id, id);
  if (row.status !== "awaiting_confirm") throw new Conflict("Conflict");
  if (!row.confirmExpiresAt || row.confirmExpiresAt <= nowIso()) {
    await advance(s, row, { status: "expired" });
    throw new Conflict("Conflict");
  }
  await requireVerified(s, principal.customer.id, row);
  requireAllowedNumber(await placedCallPolicyOf(s, principal.customer.id), row.number);
  const now = nowIso();
  const moved = await advance(s, row, { status: "queued", confirmedAt: now, confirmedBy: actingLabel(principal) });
  if (!moved) throw new Conflict("Conflict");
  s.background(dispatchTestCall(s, moved));
  return testCallOut(moved);
}

/**
 * A node's report of a test call. A later step moves it on with what the report says; an earlier
 * or repeated step changes nothing. A cancelled test call stays cancelled, but an end the node
 * reports after the cancel says what the call did (its call, final SIP answer, talk time).
 */
export async function applyTestCallProgress(s: Services, testCallId: string, progress: TestCallProgress) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await s.db.select().from(testCalls).where(eq(testCalls.id, testCallId)).get();
    if (!row) throw new NotFound("test call not found");
    const current = row.status as TestCallStatus;
    const facts = factsOf(progress);
    // A verification call has no call record for the account to read.
    if (row.purpose === "verify") delete facts.callId;
    if (RANK[progress.status] > RANK[current]) {
      const moved = await advance(s, row, { ...facts, status: progress.status });
      if (moved) return { status: moved.status };
      continue; // moved by someone else meanwhile: read again
    }
    if (current === "cancelled" && FINAL.includes(progress.status)) {
      await s.db
        .update(testCalls)
        .set({ ...endFacts(facts), updatedAt: nowIso() })
        .where(eq(testCalls.id, row.id));
    }
    return { status: current };
  }
  const row = await s.db.select({ status: testCalls.status }).from(testCalls).where(eq(testCalls.id, testCallId)).get();
  return { status: row!.status };
}

function factsOf(p: TestCallProgress): Partial<TestCallRow> {
  const facts: Partial<TestCallRow> = { nodeId: p.node_id };
  if (p.call_id !== undefined) facts.callId = p.call_id;
  if (p.answered !== undefined) facts.answered = p.answered;
  if (p.sip_code !== undefined) facts.sipCode = p.sip_code;
  if (p.sip_reason !== undefined) facts.sipReason = p.sip_reason;
  if (p.talk_seconds !== undefined) facts.talkSeconds = p.talk_seconds;
  if (p.ended_by !== undefined) facts.endedBy = p.ended_by;
  if (p.error !== undefined) facts.error = p.error;
  return facts;
}

/** What an end reported after a cancel tells (the final SIP answer, talk time), without its ended_by. */
function endFacts(facts: Partial<TestCallRow>) {
  const { endedBy: _cancelled, ...rest } = facts;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== null && value !== undefined));
}

/**
 * The test call a node asks to admit (origin test): it must still be queued or dialing, under the
 * Call-ID the Worker gave it. Else the rejection the node answers with (nothing rings).
 */
export async function testCallToAdmit(s: Services, testCallId: string, sipCallId: string): Promise<TestCallRow | AdmissionRejection> {
  const row = await s.db.select().from(testCalls).where(eq(testCalls.id, testCallId)).get();
  if (!row || row.sipCallId !== sipCallId) return { decision: "reject", sip_code: 404, reason: "test_call_not_found", call_id: null };
  if (row.status !== "queued" && row.status !== "dialing") {
    return { decision: "reject", sip_code: 487, reason: `test_call_${row.status}`, call_id: null };
  }
  return row;
}

/** Links a test call to the call record its admission made (admitted or refused), and to the node placing it. */
export async function linkTestCallRecord(s: Services, testCallId: string, callId: string, nodeId: string): Promise<void> {
  await s.db
    .update(testCalls)
    .set({
      callId: sql`coalesce(${testCalls.callId}, ${callId})`,
      nodeId: sql`coalesce(${testCalls.nodeId}, ${nodeId})`,
      updatedAt: nowIso(),
    })
    .where(eq(testCalls.id, testCallId));
}

/**
 * The cron's sweep: AI agents' requests nobody confirmed within ten minutes expire; a queued test
 * call no node took within five minutes (its dispatch was lost), or one a node placed that has not
 * been heard of for an hour, fails saying so.
 */
export async function sweepTestCalls(s: Services, now: Date): Promise<void> {
  const at = now.toISOString();
  await s.db
    .update(testCalls)
    .set({ status: "expired", updatedAt: at })
    .where(and(eq(testCalls.status, "awaiting_confirm"), lte(testCalls.confirmExpiresAt, at)));
  await s.db
    .update(testCalls)
    .set({ status: "failed", error: "not_dispatched", updatedAt: at })
    .where(and(eq(testCalls.status, "queued"), lte(testCalls.updatedAt, addSeconds(at, -300))));
  await s.db
    .update(testCalls)
    .set({ status: "failed", error: "no_report_from_node", updatedAt: at })
    .where(and(inArray(testCalls.status, PLACING), lte(testCalls.updatedAt, addSeconds(at, -3600))));
}
