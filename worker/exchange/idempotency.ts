// Idempotent purchases (IETF httpapi "The Idempotency-Key HTTP Header Field" draft): a buyer who
// sends `Idempotency-Key: "<key>"` with POST /buyers/esim/purchase or the top-up purchase may
// retry it as often as the link needs; the first request is charged once and every retry answers
// its answer again (with `Idempotent-Replayed: true`).
//
//   - The claim is a row of exchange_idempotency_keys, unique on (i_account, key), inserted
//     BEFORE the debit. Of concurrent requests with one key exactly one inserts it and runs; the
//     others find the row and never reach the ledger.
//   - Same key, other operation or fields (a different request hash): 422. Same key while the
//     first is still running: 409 (the client retries later). Keys of different accounts are
//     independent.
//   - The first request failed with a client error (402, 404, 400...: nothing charged, or the
//     debit already refunded): the claim is deleted, so the same key may be sent again.
//   - Crash window: if the Worker dies (or D1 fails) after the claim and before the answer is
//     stored, the row stays without an answer; retries with that key answer 409 until it expires
//     (24 h), never a second charge. The purchase, if it happened, is in /buyers/esim/orders.
//     An unexpected (500) failure is treated the same way: its outcome is not known for sure.
import { and, eq, inArray, lt } from "drizzle-orm";
import { exchangeIdempotencyKeys as keys } from "../../schema/exchange.ts";
import type { Db } from "../lib/db.ts";
import { describeError } from "../lib/errors.ts";
import { nowIso } from "../lib/time.ts";
import type { ExchangeContext } from "./context.ts";
import { hashHex } from "./hash.ts";
import { ExchangeError, invalidInput } from "./respond.ts";

/** How long a key is remembered: the draft's suggested 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/**
 * The key of the header: an sf-string (`"abc"`, as the draft specifies) or, leniently, a bare
 * token; 1-255 visible ASCII characters. Undefined when the header is absent.
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const quoted = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(value);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, "$1") : /^[\x21\x23-\x7e]+$/.test(value) ? value : "";
  if (key.length < 1 || key.length > 255) {
    throw invalidInput(IDEMPOTENCY_HEADER, 'must be a quoted string of 1-255 visible characters, e.g. "8e03978e-40d5"');
  }
  return key;
}

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

/**
 * Runs `run` at most once per (account, Idempotency-Key): the first request's answer is stored and
 * replayed to retries. Without the header, `run` simply runs.
 */
export async function idempotent(
  c: ExchangeContext,
  scope: string,
  input: unknown,
  run: () => Promise<Record<string, unknown>>,
): Promise<Response> {
  const key = idempotencyKeyOf(c.req.header(IDEMPOTENCY_HEADER));
  if (key === undefined) return c.json({ status: "success", ...(await run()) });
  const db = c.var.db;
  const iAccount = c.var.exchange.iAccount;
  const requestHash = await hashHex("SHA-256", `${scope}\n${canonical(input)}`);
  const at = nowIso();

  let owned = await claim(db, iAccount, key, requestHash, at);
  if (!owned) {
    const [row] = await db.select().from(keys).where(whereKey(iAccount, key));
    const expired = row && Date.parse(row.createdAt) + IDEMPOTENCY_TTL_MS <= Date.parse(at);
    if (!row || expired) {
      // Deleted since (a failed first attempt) or past its 24 h and not yet swept: claim afresh.
      if (row) await db.delete(keys).where(and(whereKey(iAccount, key), eq(keys.createdAt, row.createdAt)));
      owned = await claim(db, iAccount, key, requestHash, at);
      if (!owned) throw new ExchangeError(409, `${IDEMPOTENCY_HEADER}: a request with this key is in progress; retry later`);
    } else if (row.requestHash !== requestHash) {
      throw new ExchangeError(422, `${IDEMPOTENCY_HEADER}: already used for a different request`);
    } else if (row.response === null) {
      throw new ExchangeError(
        409,
        `${IDEMPOTENCY_HEADER}: a request with this key is in progress (or was interrupted: see /buyers/esim/orders); retry later`,
      );
    } else {
      return c.json(JSON.parse(row.response) as Record<string, unknown>, 200, { "Idempotent-Replayed": "true" });
    }
  }

  let data: Record<string, unknown>;
  try {
    data = await run();
  } catch (err) {
    // A client error charged nothing (or was refunded): the key may be used again. Anything else
    // keeps the claim, as its outcome is not certain (see the crash window above).
    if (err instanceof ExchangeError && err.status < 500) await db.delete(keys).where(whereKey(iAccount, key));
    throw err;
  }
  const body = { status: "success", ...data };
  try {
    await db
      .update(keys)
      .set({ response: JSON.stringify(body) })
      .where(whereKey(iAccount, key));
  } catch (err) {
    // The purchase stands; only its replay is lost (retries answer 409, never charge again).
    console.error("exchange: idempotent answer not stored", describeError(err));
  }
  return c.json(body, 200);
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
