// Who is acting: resolved once per request by a front door (a bearer access token, an
// X-API-Key, a recording token; later an OAuth token) and handed to every service verb.
import { and, eq, isNull } from "drizzle-orm";
import { apiKeys, customers, users } from "../../../schema/identity.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import type { Db } from "../../lib/db.ts";
import { isoToSec, nowIso } from "../../lib/time.ts";
import { verifyAccessToken } from "../../lib/tokens.ts";
import { Unauthenticated } from "../errors.ts";

const LAST_USED_RESOLUTION_MS = 60_000;

export type CustomerRow = typeof customers.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export type Principal = {
  customer: CustomerRow;
  user: UserRow;
  /**
   * media_token: a recording token (`t`), good for one call's recording and nothing else.
   * connector: an OAuth access token issued to an AI agent (MCP); what it asks for that rings a
   * phone waits for a person's confirmation in the portal.
   */
  via: "token" | "api_key" | "media_token" | "connector";
  impersonatedBy: string | null;
  /** Set when via is "connector": the OAuth client and grant behind the token, and its scopes. */
  connector?: ConnectorGrant | null;
};

export type ConnectorGrant = { clientId: string; clientName: string | null; grantId: string; scopes: string[] };

/** A person signed into the portal themselves (not a script's key, not an agent, not an impersonation). */
export const isPortalSession = (p: Pick<Principal, "via" | "impersonatedBy">) => p.via === "token" && !p.impersonatedBy;

/** What the session may do; an administrator account's member, or an impersonation, is never admin. */
export function sessionRole(p: Pick<Principal, "customer" | "user" | "impersonatedBy">): "admin" | "owner" | "member" {
  if (p.user.role !== "owner") return "member";
  return p.customer.role === "admin" && !p.impersonatedBy ? "admin" : "owner";
}

/** Who acted, as records show it: the user's name (else e-mail), or the administrator behind an impersonation. */
export function actingLabel(p: Pick<Principal, "user" | "impersonatedBy">): string {
  return p.impersonatedBy ? `${p.impersonatedBy} (administrator)` : (p.user.name ?? p.user.email);
}

/** Who asked for something, as records show it: the acting person, and the AI connector they asked through. */
export function requesterLabel(p: Pick<Principal, "user" | "impersonatedBy" | "connector">): string {
  return p.connector ? `${actingLabel(p)} via ${p.connector.clientName ?? "AI connector"}` : actingLabel(p);
}

async function loadUser(db: Db, userId: string, customerId: string) {
  const row = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(and(eq(users.id, userId), eq(users.customerId, customerId)))
    .get();
  return row && row.user.isActive ? row : null;
}

export async function fromAccessToken(db: Db, token: string, secret: string): Promise<Principal | null> {
  const claims = await verifyAccessToken(token, secret);
  return claims ? fromSignedClaims(db, claims, "token") : null;
}

/**
 * The principal behind verified token claims: the user must still be active, and a token issued
 * before a logout-all or a password change is refused (one-second resolution).
 */
export async function fromSignedClaims(
  db: Db,
  claims: { sub: string; cid: string; iat: number; imp?: string | undefined },
  via: "token" | "media_token",
): Promise<Principal | null> {
  const row = await loadUser(db, claims.sub, claims.cid);
  if (!row || revokedSince(row, claims.iat)) return null;
  if (claims.imp && !(await administratorStillActs(db, claims.imp, claims.iat))) return null;
  return { ...row, via, impersonatedBy: claims.imp ?? null };
}

/** True when a logout-all or password change of the user or the account came after `iatSec`. */
const revokedSince = (row: { user: UserRow; customer: CustomerRow }, iatSec: number) =>
  [row.user.sessionsRevokedAt, row.customer.sessionsRevokedAt].some((revokedAt) => revokedAt && iatSec < isoToSec(revokedAt));

/**
 * An impersonation lasts only while the administrator who started it still may: still an
 * active owner of an active administrator account, not signed out everywhere since. Checked on
 * every request, so revoking the administrator ends the impersonations at once.
 */
async function administratorStillActs(db: Db, adminEmail: string, iatSec: number): Promise<boolean> {
  const admin = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.email, adminEmail))
    .get();
  if (!admin || !admin.user.isActive || admin.user.role !== "owner") return false;
  if (admin.customer.role !== "admin" || admin.customer.status !== "active") return false;
  return !revokedSince(admin, iatSec);
}

export async function fromApiKey(db: Db, key: string): Promise<Principal | null> {
  const found = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, await sha256Hex(key)), isNull(apiKeys.revokedAt)))
    .get();
  if (!found) return null;
  const row = await loadUser(db, found.userId, found.customerId);
  if (!row) return null;
  // last_used_at is kept to the minute: a busy script should not cost a write per request.
  const now = nowIso();
  if (!found.lastUsedAt || Date.parse(now) - Date.parse(found.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
    await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, found.id));
  }
  return { ...row, via: "api_key", impersonatedBy: null };
}

/** A signed-in user by id (after a sign-in step that proved who they are). */
export async function loadPrincipal(db: Db, userId: string, impersonatedBy: string | null = null): Promise<Principal> {
  const row = await db
    .select({ user: users, customer: customers })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.id, userId))
    .get();
  if (!row || !row.user.isActive) throw new Unauthenticated();
  return { ...row, via: "token", impersonatedBy };
}
