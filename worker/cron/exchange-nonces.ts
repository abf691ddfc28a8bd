// Cron: deletes the exchange's Digest nonce counters (digest_nonce_counters) whose nonces can no
// longer be used, so the table holds only the nonces of the last few minutes. Replaces the sweep
// that ran on 1% of authenticated requests. Each run deletes up to SWEEP_BATCH * 100 rows, in
// short statements; what is left waits for the next run.
import type { Services } from "../services/context.ts";
import { sweepNonceCounters, SWEEP_BATCH } from "../services/exchange/nonce-counters.ts";

const MAX_BATCHES = 100;

/** Deletes the nonce counters that expired before `now` (the scheduled time of the run). */
export async function sweepExchangeNonces(s: Pick<Services, "db">, now: Date): Promise<void> {
  const deleted = await sweepNonceCounters(s.db, now.toISOString(), MAX_BATCHES);
  if (deleted >= MAX_BATCHES * SWEEP_BATCH) {
    console.warn(`exchange: swept ${deleted} expired nonce counters; more are left for the next run`);
  }
}
