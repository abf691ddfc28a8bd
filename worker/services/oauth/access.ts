// An agent's OAuth access token, from minting to the principal it resolves to on every MCP
// request. Tokens are JWTs (RFC 9068 shape, HS256 under a key derived from JWT_SECRET for this
// use alone) bound to one resource (their audience, RFC 8707) and one grant; the grant's
// Durable Object is asked on every request, so a revocation stops its tokens at once.
import { and, eq } from "drizzle-orm";
import { jwtVerify, SignJWT } from "jose";
import { customers, users } from "../../../schema/identity.ts";
import { oauthGrants } from "../../../schema/oauth.ts";
import { hmacSha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { isoToSec, nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { InsufficientScope } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";

const TOKEN_TYPE = "at+jwt";
const LAST_USED_RESOLUTION_MS = 60_000;

/** The MCP endpoint as a resource indicator: the audience of every token this server issues. */
export const mcpResourceUrl = (origin: string) => `${origin}/api/mcp`;

/** Resource indicators compare without a trailing slash ("https://h/api/mcp/" is "https://h/api/mcp"). */
export const canonicalResource = (resource: string) => resource.replace(/\/+$/, "");

/** Where a client finds the resource's metadata (RFC 9728, path-aware): for the 401's `resource_metadata`. */
export const resourceMetadataUrl = (origin: string) => `${origin}/.well-known/oauth-protected-resource/api/mcp`;

async function signingKey(secret: string): Promise<Uint8Array> {
  const hex = await hmacSha256Hex(secret, "oauth-access-token");
  return Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));
}

export type AccessTokenClaims = {
  issuer: string;
  resource: string;
  userId: string;
  customerId: string;
  grantId: string;
  clientId: string;
  scopes: string[];
};

export async function mintAccessToken(s: Services, claims: AccessTokenClaims): Promise<{ token: string; expiresIn: number }> {
  const expiresIn = s.config.ACCESS_TOKEN_TTL_SEC;
  const token = await new SignJWT({
    cid: claims.customerId,
    gid: claims.grantId,
    client_id: claims.clientId,
    scope: claims.scopes.join(" "),
  })
    .setProtectedHeader({ alg: "HS256", typ: TOKEN_TYPE })
    .setIssuer(claims.issuer)
    .setAudience(canonicalResource(claims.resource))
    .setSubject(claims.userId)
    .setJti(newId())
    .setIssuedAt()
    .setExpirationTime(`${expiresIn}s`)
    .sign(await signingKey(s.config.JWT_SECRET));
  return { token, expiresIn };
}

type VerifiedClaims = { sub: string; cid: string; gid: string; clientId: string; scopes: string[]; iat: number };

/** The claims of a token this server signed for any resource (for revocation), or null. */
export async function verifyAccessTokenAnyResource(s: Services, token: string): Promise<(VerifiedClaims & { aud: string }) | null> {
  return verify(s, token, undefined);
}

async function verify(s: Services, token: string, audience: string | undefined): Promise<(VerifiedClaims & { aud: string }) | null> {
  try {
    const { payload, protectedHeader } = await jwtVerify(token, await signingKey(s.config.JWT_SECRET), {
      algorithms: ["HS256"],
      typ: TOKEN_TYPE,
      ...(audience ? { audience: canonicalResource(audience) } : {}),
    });
    if (protectedHeader.typ !== TOKEN_TYPE) return null;
    const { sub, cid, gid, client_id, scope, iat, aud } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || typeof cid !== "string" || typeof gid !== "string") return null;
    if (typeof client_id !== "string" || typeof scope !== "string" || typeof iat !== "number" || typeof aud !== "string") return null;
    return { sub, cid, gid, clientId: client_id, scopes: scope.split(" ").filter(Boolean), iat, aud };
  } catch {
    return null;
  }
}

/**
 * The connector principal behind an agent's access token, or null when the token is not one
 * this server signed, has expired, was minted for another resource than `resourceUrl`, or its
 * grant, user or account no longer stands (revoked, deactivated, signed out everywhere since).
 */
export async function principalFromOAuthToken(s: Services, token: string, resourceUrl: string): Promise<Principal | null> {
  const claims = await verify(s, token, resourceUrl);
  if (!claims) return null;
  const row = await s.db
    .select({ grant: oauthGrants, user: users, customer: customers })
    .from(oauthGrants)
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .innerJoin(customers, eq(customers.id, oauthGrants.customerId))
    .where(and(eq(oauthGrants.id, claims.gid), eq(oauthGrants.customerId, claims.cid), eq(oauthGrants.userId, claims.sub)))
    .get();
  if (!row || row.grant.revokedAt || !row.user.isActive) return null;
  if ([row.user.sessionsRevokedAt, row.customer.sessionsRevokedAt].some((at) => at && claims.iat < isoToSec(at))) return null;
  // The grant's object decides: D1 learns of a revocation after it.
  const status = await s.grant(claims.gid).status();
  if (!status.active) return null;
  await touchGrant(s, row.grant.id, row.grant.lastUsedAt);
  return {
    user: row.user,
    customer: row.customer,
    via: "connector",
    impersonatedBy: null,
    connector: { clientId: claims.clientId, clientName: row.grant.clientName, grantId: claims.gid, scopes: claims.scopes },
  };
}

async function touchGrant(s: Services, grantId: string, lastUsedAt: string | null): Promise<void> {
  const now = nowIso();
  if (lastUsedAt && Date.parse(now) - Date.parse(lastUsedAt) <= LAST_USED_RESOLUTION_MS) return;
  await s.db.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, grantId));
}

/**
 * Refuses an agent whose token lacks any of `scopes` (403 insufficient_scope naming all of
 * them). Other principals are not scoped: an API key or a portal session acts with its user's role.
 */
export function requireScopes(principal: Principal, scopes: readonly string[]): void {
  if (principal.via !== "connector") return;
  const granted = new Set(principal.connector?.scopes ?? []);
  if (scopes.some((scope) => !granted.has(scope))) throw new InsufficientScope([...scopes]);
}
