// Placing a test call (verification calls too): the Worker asks a SIP node, through the NodeHub,
// to originate it, and moves it on as far as the answer tells (dialing, or failed naming why).
// Shared by the test calls the accounts ask for (./test-calls.ts) and the verification calls that
// prove a number (./verified-numbers.ts).
import { and, eq, sql } from "drizzle-orm";
import type { OriginateCommand, TestCallStatus } from "../../../schema/node-api.ts";
import { testCalls } from "../../../schema/test-calls.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { TooManyRequests } from "../errors.ts";

export type TestCallRow = typeof testCalls.$inferSelect;

/** How long the Worker waits for a SIP node to take an originate. */
export const ORIGINATE_TIMEOUT_MS = 5_000;
/** How long the node lets a test call ring before it sends CANCEL. */
export const RING_TIMEOUT_SECONDS = 45;

const WHY: Record<string, string> = { no_node: "no_sip_node", timeout: "node_timeout" };

/** The progress fields of a test call not placed yet. */
export const emptyProgress = {
  callId: null,
  agentSipCallId: null,
  agentCallId: null,
  nodeId: null,
  answered: null,
  sipCode: null,
  sipReason: null,
  talkSeconds: null,
  endedBy: null,
  error: null,
} satisfies Partial<TestCallRow>;

/** What makes a new test call; the rest of its row starts empty (no agent, no confirmation, no progress). */
export type NewTestCall = Pick<
  TestCallRow,
  "customerId" | "status" | "number" | "callerId" | "destinationId" | "seconds" | "speech" | "purpose" | "createdBy"
> &
  Partial<Pick<TestCallRow, "id" | "agentDestinationId" | "instruction" | "confirmUrl" | "confirmExpiresAt">>;

/** A new test call's row (test, verification or CLI-check call), created now under a Call-ID of its own. */
export function newTestCallRow(fields: NewTestCall, now: string): TestCallRow {
  return {
    ...emptyProgress,
    id: newId(),
    sipCallId: `${newId()}@test-call`,
    agentDestinationId: null,
    instruction: null,
    confirmedAt: null,
    confirmedBy: null,
    confirmUrl: null,
    confirmExpiresAt: null,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/** Counts one test call (verification calls too) of the account; 429 past TEST_CALLS_PER_HOUR. */
export async function countTestCall(s: Services, customerId: string): Promise<void> {
  const verdict = await s.limiter(`test-calls:${customerId}`).hit(s.config.TEST_CALLS_PER_HOUR, 3600);
  if (!verdict.allowed) throw new TooManyRequests("too_many_test_calls", verdict.retryAfterSec);
}

/**
 * Moves a test call from the status it was read in to `patch.status`, only if it still is in that
 * status (another request or a node's report may have moved it meanwhile). The row after, or null.
 */
export async function advance(s: Services, row: TestCallRow, patch: Partial<TestCallRow> & { status: TestCallStatus }) {
  const updated = await s.db
    .update(testCalls)
    .set({ ...patch, updatedAt: nowIso() })
    .where(and(eq(testCalls.id, row.id), eq(testCalls.status, row.status)))
    .returning();
  return updated[0] ?? null;
}

/**
 * Asks a SIP node, through the NodeHub, to place a queued test call: dialing once a node took it,
 * failed when none is connected or none answers in time (error names why). A verification call
 * passes the code it speaks here, the only place it exists in clear.
 */
export async function dispatchTestCall(s: Services, row: TestCallRow, code?: string): Promise<void> {
  const command: OriginateCommand = {
    type: "originate",
    test_call_id: row.id,
    sip_call_id: row.sipCallId,
    number: row.number,
    caller_id: row.callerId ?? s.config.PLATFORM_CALLER_ID,
    seconds: row.seconds,
    speech: row.speech as OriginateCommand["speech"],
    ...(code ? { code } : {}),
    ring_timeout_seconds: RING_TIMEOUT_SECONDS,
    ...(row.agentDestinationId ? { agent_destination_id: row.agentDestinationId } : {}),
    ...(row.instruction ? { instruction: row.instruction } : {}),
  };
  // A hub that fails outright (a socket closing under it) is a failed dispatch, never a test call left queued.
  const outcome = await s.hub
    .command(command, ORIGINATE_TIMEOUT_MS)
    .catch((err: unknown) => ({ ok: false as const, error: `hub: ${err instanceof Error ? err.message : String(err)}` }));
  const queued = { ...row, status: "queued" };
  if (outcome.ok) {
    const moved = await advance(s, queued, { status: "dialing", nodeId: outcome.nodeId ?? null });
    // A node's progress may have arrived first: the node is recorded all the same.
    if (!moved && outcome.nodeId) {
      await s.db
        .update(testCalls)
        .set({ nodeId: sql`coalesce(${testCalls.nodeId}, ${outcome.nodeId})` })
        .where(eq(testCalls.id, row.id));
    }
  } else {
    const reason = WHY[outcome.error] ?? (outcome.error.startsWith("hub: ") ? outcome.error : `node_refused: ${outcome.error}`);
    const error = reason.slice(0, 200);
    await advance(s, queued, { status: "failed", error });
  }
}
