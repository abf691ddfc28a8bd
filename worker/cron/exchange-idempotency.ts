// Cron: forgets the exchange's Idempotency-Key claims (exchange_idempotency_keys) 24 hours after
// they were made, as the idempotency-key draft suggests; a retry after that is a new purchase.
// Each run deletes up to IDEMPOTENCY_SWEEP_BATCH * 100 rows, in short statements.
import type { Services } from "../services/context.ts";
import { IDEMPOTENCY_SWEEP_BATCH, IDEMPOTENCY_TTL_MS, sweepIdempotencyKeys } from "../services/exchange/idempotency.ts";

const MAX_BATCHES = 100;

/** Deletes the keys older than 24 h at `now` (the scheduled time of the run). */
export async function sweepExchangeIdempotencyKeys(s: Pick<Services, "db">, now: Date): Promise<number> {
  const before = new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString();
  const deleted = await sweepIdempotencyKeys(s.db, before, MAX_BATCHES);
  if (deleted >= MAX_BATCHES * IDEMPOTENCY_SWEEP_BATCH) {
    console.warn(`exchange: swept ${deleted} expired idempotency keys; more are left for the next run`);
  }
  return deleted;
}
