// Cron: forgets single-use step tokens past their expiry (they fail verification anyway), so
// the spent_tokens table holds only the last few minutes' tokens.
import type { Services } from "../services/context.ts";
import { sweepSpentTokens } from "../services/identity/spent-tokens.ts";

export async function sweepExpiredStepTokens(s: Services, now: Date): Promise<void> {
  await sweepSpentTokens(s.db, now.toISOString());
}
