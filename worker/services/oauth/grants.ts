// Grants: what a person's consent gives an agent. A code exchange starts one (its D1 row, the
// portal's list, and its OAuthGrant object, which holds the refresh token); a refresh rotates
// its token through the object; a revocation (by the agent, RFC 7009, or by the person in the
// portal) or a replayed refresh token ends it, and with it every token it issued.
import { and, desc, eq, isNull } from "drizzle-orm";
import { auditLog, customers, users } from "../../../schema/identity.ts";
import { oauthGrants } from "../../../schema/oauth.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { isOAuthScope } from "../../resources/oauth.ts";
import { newId } from "../../lib/ids.ts";
import { actingLabel, type Principal } from "../identity/principal.ts";
import { isoToSec, nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { NotFound } from "../errors.ts";
import { canonicalResource, mintAccessToken, verifyAccessTokenAnyResource } from "./access.ts";
import type { OAuthClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";

/** The token endpoint's answer (RFC 6749 section 5.1). */
export type TokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token: string;
};

/** A refresh token names its grant, so the grant's object can be asked: "<grant id>.<secret>". */
const newRefreshToken = (grantId: string) => `${grantId}.${randomToken(32)}`;
const grantOfRefreshToken = (token: string) => /^([0-9a-f-]{36})\.[A-Za-z0-9_-]{43}$/.exec(token)?.[1] ?? null;
const refreshExpiry = (s: Services) => Date.now() + s.config.REFRESH_TOKEN_TTL_DAYS * 86_400_000;

const hostOf = (uri: string) => {
  try {
    return new URL(uri).host || null;
  } catch {
    return null;
  }
};

/** A sign-out everywhere (of the user or the account) after the grant was given ends it (one-second resolution, as access tokens). */
const endedBySignOut = (grantCreatedAt: string, signedOutAt: (string | null)[]) =>
  signedOutAt.some((at) => at && isoToSec(grantCreatedAt) < isoToSec(at));

/** What an authorization code stood for, once spent (services/oauth/codes.ts): the grant it starts. */
export type SpentCode = {
  /** The grant this exchange starts (named when the code was spent). */
  grantId: string;
  customerId: string;
  userId: string;
  scopes: string[];
  resource: string;
  redirectUri: string;
};

/** Starts the grant a spent code stands for; answers its first tokens. */
export async function startGrant(s: Services, client: OAuthClient, code: SpentCode): Promise<TokenResponse> {
  const grantId = code.grantId;
  const refreshToken = newRefreshToken(grantId);
  const now = nowIso();
  const user = await s.db.select().from(users).where(eq(users.id, code.userId)).get();
  await s.db.batch([
    s.db.insert(oauthGrants).values({
      id: grantId,
      customerId: code.customerId,
      userId: code.userId,
      clientId: client.clientId,
      clientName: client.clientName,
      redirectHost: hostOf(code.redirectUri),
      scope: code.scopes.join(" "),
      resource: code.resource,
      createdAt: now,
    }),
    s.db.insert(auditLog).values({
      id: newId(),
      customerId: code.customerId,
      actorUserId: code.userId,
      actorLabel: user?.name ?? user?.email ?? null,
      action: "oauth.agent_authorized",
      detail: { grant_id: grantId, client_id: client.clientId, client_name: client.clientName, scopes: code.scopes },
      createdAt: now,
    }),
  ]);
  const record = {
    grantId,
    customerId: code.customerId,
    userId: code.userId,
    clientId: client.clientId,
    scopes: code.scopes,
    resource: code.resource,
    createdAtMs: Date.parse(now),
  };
  const started = await s.grant(grantId).start(record, await sha256Hex(refreshToken), refreshExpiry(s));
  if (!started.active) {
    // The code came back while this exchange was under way: its replay revoked the grant first.
    await mirrorRevocation(s, grantId, started.revokedReason ?? "code_replay", null);
    throw new OAuthError("invalid_grant", "the code was used twice: the grant is revoked");
  }
  return tokensFor(s, record, code.scopes, refreshToken);
}

async function tokensFor(
  s: Services,
  grant: { grantId: string; customerId: string; userId: string; clientId: string; resource: string },
  scopes: string[],
  refreshToken: string,
): Promise<TokenResponse> {
  const { token, expiresIn } = await mintAccessToken(s, {
    issuer: s.origin,
    resource: grant.resource,
    userId: grant.userId,
    customerId: grant.customerId,
    grantId: grant.grantId,
    clientId: grant.clientId,
    scopes,
  });
  return { access_token: token, token_type: "Bearer", expires_in: expiresIn, scope: scopes.join(" "), refresh_token: refreshToken };
}

/**
 * Spends a refresh token for a new pair. A token already spent revokes the grant (its family):
 * RFC 9700 section 4.14.2. `scope` may narrow the new access token; `resource` must be the grant's.
 */
export async function refreshGrant(
  s: Services,
  client: OAuthClient,
  input: { refreshToken: string; scope: string | undefined; resource: string | undefined },
): Promise<TokenResponse> {
  const grantId = grantOfRefreshToken(input.refreshToken);
  if (!grantId) throw new OAuthError("invalid_grant", "unknown refresh token");
  const row = await s.db
    .select({ grant: oauthGrants, user: users, customer: customers })
    .from(oauthGrants)
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .innerJoin(customers, eq(customers.id, oauthGrants.customerId))
    .where(eq(oauthGrants.id, grantId))
    .get();
  if (!row || row.grant.clientId !== client.clientId) throw new OAuthError("invalid_grant", "unknown refresh token");
  if (row.grant.revokedAt) throw new OAuthError("invalid_grant", "the grant was revoked");
  // Deactivating the person, or signing them out everywhere, ends what they granted too.
  if (!row.user.isActive || endedBySignOut(row.grant.createdAt, [row.user.sessionsRevokedAt, row.customer.sessionsRevokedAt])) {
    await revokeGrant(s, grantId, "user");
    throw new OAuthError("invalid_grant", "the grant no longer stands: its user was signed out or deactivated");
  }
  if (input.resource !== undefined && canonicalResource(input.resource) !== canonicalResource(row.grant.resource)) {
    throw new OAuthError("invalid_target", "resource differs from the one the grant is for");
  }
  const granted = row.grant.scope.split(" ").filter(Boolean);
  const asked = input.scope === undefined ? granted : input.scope.split(" ").filter(Boolean);
  if (asked.some((scope) => !granted.includes(scope))) throw new OAuthError("invalid_scope", "scope exceeds what the grant holds");

  const next = newRefreshToken(grantId);
  const result = await s
    .grant(grantId)
    .rotate(client.clientId, await sha256Hex(input.refreshToken), await sha256Hex(next), refreshExpiry(s));
  if (!result.ok) {
    if (result.reason === "replayed") {
      await mirrorRevocation(s, grantId, "replay", null);
      throw new OAuthError("invalid_grant", "this refresh token was already used: the grant is revoked");
    }
    throw new OAuthError(
      "invalid_grant",
      result.reason === "expired" ? "the refresh token has expired" : "unknown or revoked refresh token",
    );
  }
  return tokensFor(s, { ...result.grant, resource: row.grant.resource }, asked, next);
}

/** Ends a grant: the object first (it decides), then D1's read model and the audit log. */
export async function revokeGrant(
  s: Services,
  grantId: string,
  reason: "user" | "agent" | "replay" | "code_replay",
  by: Principal | null = null,
): Promise<void> {
  await s.grant(grantId).revoke(reason);
  await mirrorRevocation(s, grantId, reason, by);
}

async function mirrorRevocation(s: Services, grantId: string, reason: string, by: Principal | null): Promise<void> {
  const now = nowIso();
  const [row] = await s.db
    .update(oauthGrants)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
    .returning();
  if (!row) return;
  await s.db.insert(auditLog).values({
    id: newId(),
    customerId: row.customerId,
    actorUserId: by?.user.id ?? null,
    actorLabel: by ? actingLabel(by) : (row.clientName ?? row.clientId),
    action: "oauth.agent_revoked",
    detail: { grant_id: grantId, client_id: row.clientId, reason },
    createdAt: now,
  });
}

/**
 * RFC 7009: the agent gives back a refresh or an access token; the grant it belongs to ends, with
 * every token issued under it. An unknown token, or another client's, changes nothing (200 either way).
 */
export async function revokeByToken(s: Services, client: OAuthClient, token: string): Promise<void> {
  const refreshGrantId = grantOfRefreshToken(token);
  if (refreshGrantId) {
    const stub = s.grant(refreshGrantId);
    const status = await stub.status();
    if (status.grant?.clientId === client.clientId && (await stub.holdsRefresh(await sha256Hex(token)))) {
      await revokeGrant(s, refreshGrantId, "agent");
    }
    return;
  }
  const claims = await verifyAccessTokenAnyResource(s, token);
  if (claims && claims.clientId === client.clientId) await revokeGrant(s, claims.gid, "agent");
}

/** The agents the principal may see: an owner sees the account's, a member their own. */
export async function listAgents(s: Services, principal: Principal) {
  const mine = principal.user.role === "owner" ? undefined : eq(oauthGrants.userId, principal.user.id);
  const rows = await s.db
    .select({ grant: oauthGrants, user: users })
    .from(oauthGrants)
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .where(and(eq(oauthGrants.customerId, principal.customer.id), isNull(oauthGrants.revokedAt), mine))
    .orderBy(desc(oauthGrants.createdAt))
    .all();
  // A grant whose person was deactivated or signed out everywhere since no longer works: not listed.
  const standing = rows.filter(
    ({ grant, user }) => user.isActive && !endedBySignOut(grant.createdAt, [user.sessionsRevokedAt, principal.customer.sessionsRevokedAt]),
  );
  const items = standing.map(({ grant, user: { email } }) => ({
    grant_id: grant.id,
    client_id: grant.clientId,
    client_name: grant.clientName,
    redirect_host: grant.redirectHost,
    user_id: grant.userId,
    user_email: email,
    scopes: grant.scope.split(" ").filter(isOAuthScope),
    created_at: grant.createdAt,
    last_used_at: grant.lastUsedAt,
  }));
  return { items, total: items.length };
}

/** The portal revokes an agent: another account's grant, or for a member another user's, is not found. */
export async function revokeAgent(s: Services, principal: Principal, grantId: string): Promise<void> {
  const grant = await s.db
    .select()
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.customerId, principal.customer.id), isNull(oauthGrants.revokedAt)))
    .get();
  if (!grant || (principal.user.role !== "owner" && grant.userId !== principal.user.id)) throw new NotFound("Agent not found");
  await revokeGrant(s, grantId, "user", principal);
}
