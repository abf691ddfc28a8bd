// Replay protection: the nonce count (nc) of a Digest credential is single-use. The highest nc
// seen per nonce is kept in D1 (digest_nonce_counters) until a minute after the nonce goes stale;
// a request whose nc is not above it is a replay. Expired counters are deleted by a Cron Trigger
// (worker/cron/exchange-nonces.ts), not on the request path.
import { inArray, lt, sql } from "drizzle-orm";
import { digestNonceCounters as counters } from "../../../schema/exchange.ts";
import type { Config } from "../../env.ts";
import type { Db } from "../../lib/db.ts";

/** When the count of a nonce issued at `issuedSec` can be forgotten: a minute after the nonce goes stale. */
export const counterExpiry = (config: Pick<Config, "EXCHANGE_NONCE_TTL_SEC">, issuedSec: number) =>
  new Date((issuedSec + config.EXCHANGE_NONCE_TTL_SEC + 60) * 1000).toISOString();

/**
 * Records nc for the nonce if it is above the highest seen; false when it is not (a replay).
 * One statement (a conditional upsert): concurrent requests with the same nc cannot both pass.
 */
export async function advanceNonceCount(db: Db, nonce: string, nc: number, expiresAt: string): Promise<boolean> {
  const row = await db
    .insert(counters)
    .values({ nonce, lastNc: nc, expiresAt })
    .onConflictDoUpdate({
      target: counters.nonce,
      set: { lastNc: sql`excluded.last_nc` },
      setWhere: sql`excluded.last_nc > ${counters.lastNc}`,
    })
    .returning({ lastNc: counters.lastNc })
    .get();
  return row !== undefined;
}

/** Rows one DELETE removes: short statements, so the sweep never holds the database for long. */
export const SWEEP_BATCH = 500;

/**
 * Deletes the counters that expired before `nowIso`, SWEEP_BATCH at a time, at most `maxBatches`
 * statements; the number deleted (maxBatches * SWEEP_BATCH means some may be left for next time).
 */
export async function sweepNonceCounters(db: Db, nowIso: string, maxBatches = 100): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const expired = db.select({ nonce: counters.nonce }).from(counters).where(lt(counters.expiresAt, nowIso)).limit(SWEEP_BATCH);
    const { meta } = await db.delete(counters).where(inArray(counters.nonce, expired)).run();
    deleted += meta.changes;
    if (meta.changes < SWEEP_BATCH) break;
  }
  return deleted;
}
