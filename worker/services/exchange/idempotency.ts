// Idempotent purchases (IETF httpapi "The Idempotency-Key HTTP Header Field" draft): a buyer who
// sends `Idempotency-Key: "<key>"` with POST /buyers/esim/purchase or the top-up purchase may
// retry it as often as the link needs; the first request is charged once and every retry gets
// its answer again (the front door, worker/exchange/idempotency.ts, reads the header and marks a
// replay with `Idempotent-Replayed: true`).
//
//   - The claim is a row of exchange_idempotency_keys, unique on (i_account, key), inserted
//     BEFORE the debit. Of concurrent requests with one key exactly one inserts it and runs; the
//     others find the row and never reach the ledger.
//   - Same key, other operation or fields (a different request hash): 422. Same key while the
//     first is still running: 409 (the client retries later). Keys of different accounts are
//     independent.
//   - The first request was refused (errors.ts, isRefusal: 402, 404, 400...: nothing charged, or
//     the debit already refunded): the claim is deleted, so the same key may be sent again.
//   - Crash window: if the Worker dies (or D1 fails) after the claim and before the answer is
//     stored, the row stays without an answer; retries with that key answer 409 until it expires
//     (24 h), never a second charge. The purchase, if it happened, is in /buyers/esim/orders.
//     An unexpected (500) failure is treated the same way: its outcome is not known for sure.
import { and, eq, inArray, lt } from "drizzle-orm";
import { exchangeIdempotencyKeys as keys } from "../../../schema/exchange.ts";
import type { Db } from "../../lib/db.ts";
import { describeError } from "../../lib/errors.ts";
import { nowIso } from "../../lib/time.ts";
import { Conflict, Refused } from "../errors.ts";
import type { ExchangeServices } from "./context.ts";
import { isRefusal } from "./errors.ts";
import { hashHex } from "./hash.ts";

/** How long a key is remembered: the draft's suggested 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

type Answer = Record<string, unknown>;

/** One purchase request with a key: the account's key, the operation it names and its validated fields. */
export type IdempotentRequest = { iAccount: number; key: string; scope: string; input: unknown };

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

const whereKey = (iAccount: number, key: string) => and(eq(keys.iAccount, iAccount), eq(keys.key, key));

/** Inserts the claim; true when this request owns the key. */
async function claim(db: Db, iAccount: number, key: string, requestHash: string, at: string): Promise<boolean> {
  const row = await db
    .insert(keys)
    .values({ iAccount, key, requestHash, response: null, createdAt: at })
    .onConflictDoNothing()
    .returning({ key: keys.key })
    .get();
  return row !== undefined;
}

/** The answer a claim stored, kept as the whole success body ({status: "success", ...answer}) as it always was. */
function replayOf(response: string): Answer {
  const { status: _status, ...answer } = JSON.parse(response) as Answer;
  return answer;
}

/**
 * Runs `run` at most once per (account, key): the first request's answer is stored and replayed
 * to retries (`replayed`).
 */
export async function idempotent(
  s: Pick<ExchangeServices, "db">,
  request: IdempotentRequest,
  run: () => Promise<Answer>,
): Promise<{ answer: Answer; replayed: boolean }> {
  const { db } = s;
  const { iAccount, key } = request;
  const requestHash = await hashHex("SHA-256", `${request.scope}\n${canonical(request.input)}`);
  const at = nowIso();

  let owned = await claim(db, iAccount, key, requestHash, at);
  if (!owned) {
    const [row] = await db.select().from(keys).where(whereKey(iAccount, key));
    const expired = row && Date.parse(row.createdAt) + IDEMPOTENCY_TTL_MS <= Date.parse(at);
    if (!row || expired) {
      // Deleted since (a failed first attempt) or past its 24 h and not yet swept: claim afresh.
      if (row) await db.delete(keys).where(and(whereKey(iAccount, key), eq(keys.createdAt, row.createdAt)));
      owned = await claim(db, iAccount, key, requestHash, at);
      if (!owned) throw new Conflict(`${IDEMPOTENCY_HEADER}: a request with this key is in progress; retry later`);
    } else if (row.requestHash !== requestHash) {
      throw new Refused(`${IDEMPOTENCY_HEADER}: already used for a different request`);
    } else if (row.response === null) {
      throw new Conflict(
        `${IDEMPOTENCY_HEADER}: a request with this key is in progress (or was interrupted: see /buyers/esim/orders); retry later`,
      );
    } else {
      return { answer: replayOf(row.response), replayed: true };
    }
  }

  let answer: Answer;
  try {
    answer = await run();
  } catch (err) {
    // A refusal charged nothing (or was refunded): the key may be used again. Anything else keeps
    // the claim, as its outcome is not certain (see the crash window above).
    if (isRefusal(err)) await db.delete(keys).where(whereKey(iAccount, key));
    throw err;
  }
  try {
    await db
      .update(keys)
      .set({ response: JSON.stringify({ status: "success", ...answer }) })
      .where(whereKey(iAccount, key));
  } catch (err) {
    // The purchase stands; only its replay is lost (retries answer 409, never charge again).
    console.error("exchange: idempotent answer not stored", describeError(err));
  }
  return { answer, replayed: false };
}

/** Rows one DELETE removes in the sweep. */
export const IDEMPOTENCY_SWEEP_BATCH = 500;

/** Deletes the keys created before `beforeIso`, in short statements; the number deleted. */
export async function sweepIdempotencyKeys(db: Db, beforeIso: string, maxBatches = 100): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const old = db.select({ createdAt: keys.createdAt }).from(keys).where(lt(keys.createdAt, beforeIso)).limit(IDEMPOTENCY_SWEEP_BATCH);
    const { meta } = await db.delete(keys).where(inArray(keys.createdAt, old)).run();
    deleted += meta.changes;
    if (meta.changes < IDEMPOTENCY_SWEEP_BATCH) break;
  }
  return deleted;
}
