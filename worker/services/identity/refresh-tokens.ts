// Browser sessions: opaque refresh tokens in the shield_refresh cookie, stored only as
// SHA-256 hashes, rotated on every use and grouped in families (one family per sign-in).
// A token rotated less than 30 s ago (a second tab refreshing at once) is answered once from the
// family's current token; an older replay means the token leaked: the family is revoked.
import { and, eq, inArray, isNull } from "drizzle-orm";
import { customers, refreshTokens, users } from "../../../schema/identity.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { d1Chunks, type Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { addDays, nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { Unauthenticated } from "../errors.ts";
import type { Principal } from "./principal.ts";
import { spend } from "./spent-tokens.ts";

/** The spec's name (Authentication rule 4), sent with Secure, HttpOnly, SameSite=Strict, Path=/api/auth. */
export const REFRESH_COOKIE = "shield_refresh";
/** The name we sent before issue 27: still read (and replaced by REFRESH_COOKIE) for a release, so no session breaks. */
export const LEGACY_REFRESH_COOKIE = "__Secure-shield_refresh";
export const REFRESH_GRACE_SEC = 30;

async function insertToken(deps: Services, familyId: string, principal: Principal): Promise<string> {
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
export const startFamily = (deps: Services, principal: Principal) => insertToken(deps, newId(), principal);

export type Rotation = { principal: Principal; familyId: string; nextToken: string | null };

/** Spends a refresh token: a new one in the same family, or the grace answer, or 401. */
export async function rotate(deps: Services, token: string): Promise<Rotation> {
  const now = nowIso();
  const found = await deps.db
    .select({ token: refreshTokens, user: users, customer: customers })
    .from(refreshTokens)
    .innerJoin(users, eq(users.id, refreshTokens.userId))
    .innerJoin(customers, eq(customers.id, refreshTokens.customerId))
    .where(eq(refreshTokens.tokenHash, await sha256Hex(token)))
    .get();
  if (!found || found.token.revokedAt || found.token.expiresAt <= now || !found.user.isActive) throw new Unauthenticated();
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
  const graceEndsMs = Date.parse(rotatedAt) + REFRESH_GRACE_SEC * 1000;
  if (Date.parse(now) < graceEndsMs) {
    // The browser already holds the family's current token from the first answer. The grace
    // answers once: a token sent again and again within it must not mint access tokens each time.
    if (await spend(deps.db, `refresh-grace:${found.token.id}`, Math.ceil(graceEndsMs / 1000))) {
      return { principal, familyId, nextToken: null };
    }
    throw new Unauthenticated();
  }
  await revokeFamily(deps.db, familyId);
  throw new Unauthenticated();
}

/** The family a refresh token belongs to (the browser session it was issued in). */
export async function familyOf({ db }: Pick<Services, "db">, token: string | null): Promise<string | null> {
  if (!token) return null;
  const row = await db
    .select({ familyId: refreshTokens.familyId })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, await sha256Hex(token)))
    .get();
  return row?.familyId ?? null;
}

/** Signs one browser out: its refresh family is revoked (nothing happens for an unknown token). */
export async function endBrowserSession(s: Services, token: string | null): Promise<void> {
  const familyId = await familyOf(s, token);
  if (familyId) await revokeFamily(s.db, familyId);
}

async function revokeFamily(db: Db, familyId: string): Promise<void> {
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
  for (const slice of d1Chunks(ids, 1, 1)) {
    await db.update(refreshTokens).set({ revokedAt: nowIso() }).where(inArray(refreshTokens.id, slice));
  }
}

export async function revokeAccountTokens(db: Db, customerId: string): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: nowIso() })
    .where(and(eq(refreshTokens.customerId, customerId), isNull(refreshTokens.revokedAt)));
}
