// Browser sessions: opaque refresh tokens in the shield_refresh cookie, stored only as
// SHA-256 hashes, rotated on every use and grouped in families (one family per sign-in).
// A token rotated less than 30 s ago (a second tab refreshing at once) is answered from the
// family's current token; an older replay means the token leaked: the family is revoked.
import { and, eq, inArray, isNull } from "drizzle-orm";
import { customers, refreshTokens, users } from "../../../schema/identity.ts";
import type { Config } from "../../env.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import type { Db } from "../../lib/db.ts";
import { unauthorized } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { addDays, nowIso } from "../../lib/time.ts";
import type { Principal } from "./principal.ts";

export const REFRESH_COOKIE = "shield_refresh";
export const REFRESH_GRACE_SEC = 30;

type Deps = { db: Db; config: Config };

async function insertToken(deps: Deps, familyId: string, principal: Principal): Promise<string> {
  const token = randomToken(32);
  const now = nowIso();
  await deps.db.insert(refreshTokens).values({
    id: newId(),
    familyId,
    customerId: principal.customer.id,
    userId: principal.user.id,
    tokenHash: await sha256Hex(token),
    impersonatedBy: principal.impersonatedBy,
    createdAt: now,
    expiresAt: addDays(now, deps.config.REFRESH_TOKEN_TTL_DAYS),
  });
  return token;
}

/** A new family for a fresh sign-in; returns the cookie value. */
export const startFamily = (deps: Deps, principal: Principal) => insertToken(deps, newId(), principal);

export type Rotation = { principal: Principal; familyId: string; nextToken: string | null };

/** Spends a refresh token: a new one in the same family, or the grace answer, or 401. */
export async function rotate(deps: Deps, token: string): Promise<Rotation> {
  const now = nowIso();
  const found = await deps.db
    .select({ token: refreshTokens, user: users, customer: customers })
    .from(refreshTokens)
    .innerJoin(users, eq(users.id, refreshTokens.userId))
    .innerJoin(customers, eq(customers.id, refreshTokens.customerId))
    .where(eq(refreshTokens.tokenHash, await sha256Hex(token)))
    .get();
  if (!found || found.token.revokedAt || found.token.expiresAt <= now || !found.user.isActive) throw unauthorized();
  const principal: Principal = {
    user: found.user,
    customer: found.customer,
    via: "token",
    impersonatedBy: found.token.impersonatedBy,
  };
  const { familyId } = found.token;

  // Only one request can flip rotated_at from null: that one mints the successor.
  const claimed = await deps.db
    .update(refreshTokens)
    .set({ rotatedAt: now })
    .where(and(eq(refreshTokens.id, found.token.id), isNull(refreshTokens.rotatedAt)))
    .returning({ id: refreshTokens.id });
  if (claimed.length === 1) return { principal, familyId, nextToken: await insertToken(deps, familyId, principal) };

  const rotatedAt = found.token.rotatedAt ?? now;
  if (Date.parse(now) - Date.parse(rotatedAt) < REFRESH_GRACE_SEC * 1000) {
    // The browser already holds the family's current token from the first answer.
    return { principal, familyId, nextToken: null };
  }
  await revokeFamily(deps.db, familyId);
  throw unauthorized();
}

export async function familyOf(db: Db, token: string): Promise<string | null> {
  const row = await db
    .select({ familyId: refreshTokens.familyId })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, await sha256Hex(token)))
    .get();
  return row?.familyId ?? null;
}

export async function revokeFamily(db: Db, familyId: string): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: nowIso() })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

/** Revokes every refresh token of these users, except one family (the current browser's) if given. */
export async function revokeUsersTokens(db: Db, userIds: string[], keepFamilyId?: string | null): Promise<void> {
  if (userIds.length === 0) return;
  const rows = await db
    .select({ id: refreshTokens.id, familyId: refreshTokens.familyId })
    .from(refreshTokens)
    .where(and(inArray(refreshTokens.userId, userIds), isNull(refreshTokens.revokedAt)));
  const ids = rows.filter((r) => r.familyId !== keepFamilyId).map((r) => r.id);
  // D1 limits bound parameters per statement; revoke in slices.
  for (let i = 0; i < ids.length; i += 90) {
    await db.update(refreshTokens).set({ revokedAt: nowIso() }).where(inArray(refreshTokens.id, ids.slice(i, i + 90)));
  }
}

export async function revokeAccountTokens(db: Db, customerId: string): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: nowIso() })
    .where(and(eq(refreshTokens.customerId, customerId), isNull(refreshTokens.revokedAt)));
}
