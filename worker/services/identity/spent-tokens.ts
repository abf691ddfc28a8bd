// Single-use step tokens (passkey sign-in and enrolment): a token's id is written here when it
// is spent, so a replay finds it. Expired ids are swept by the cron (worker/cron/).
import { lt } from "drizzle-orm";
import { spentTokens } from "../../../schema/identity.ts";
import type { Db } from "../../lib/db.ts";
import { toIso } from "../../lib/time.ts";

/** Marks a single-use token spent; false when it already was (a replay). */
export async function spend(db: Db, jti: string, expSec: number): Promise<boolean> {
  const inserted = await db
    .insert(spentTokens)
    .values({ jti, expiresAt: toIso(expSec * 1000) })
    .onConflictDoNothing()
    .returning({ jti: spentTokens.jti });
  return inserted.length === 1;
}

/** Forgets spent tokens past their expiry: an expired token fails verification anyway. */
export async function sweepSpentTokens(db: Db, now: string): Promise<void> {
  await db.delete(spentTokens).where(lt(spentTokens.expiresAt, now));
}
