import { lt } from "drizzle-orm";
import { spentTokens } from "../../../schema/identity.ts";
import type { Db } from "../../lib/db.ts";
import { nowIso, toIso } from "../../lib/time.ts";

/** Marks a single-use token spent; false when it already was (a replay). */
export async function spend(db: Db, jti: string, expSec: number): Promise<boolean> {
  const inserted = await db
    .insert(spentTokens)
    .values({ jti, expiresAt: toIso(expSec * 1000) })
    .onConflictDoNothing()
    .returning({ jti: spentTokens.jti });
  // Spent tokens past their expiry can go: an expired token fails verification anyway.
  await db.delete(spentTokens).where(lt(spentTokens.expiresAt, nowIso()));
  return inserted.length === 1;
}
