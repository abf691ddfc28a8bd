// Authorization codes: issued when a person approves on the consent page, spent once at the
// token endpoint with the PKCE verifier (S256 only), bound to the client, the redirect URI and
// the resource. Stored only as hashes; a code is spent by one conditional update, so two
// exchanges of one code cannot both succeed. That update also names the grant the exchange
// starts, so a code that comes back revokes it (RFC 6749 section 4.1.2): either the agent or a
// thief of the code sent it twice, and nobody can tell which.
import { and, eq, isNull, lte } from "drizzle-orm";
import { oauthCodes } from "../../../schema/oauth.ts";
import { base64url, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { OAuthError } from "./errors.ts";
import { revokeGrant, type SpentCode } from "./grants.ts";

/** RFC 6749 section 4.1.2 recommends at most ten minutes; an agent exchanges its code at once. */
const CODE_TTL_SEC = 300;

export type CodeRequest = {
  clientId: string;
  customerId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
};

export async function issueCode(s: Services, request: CodeRequest): Promise<string> {
  const code = randomToken(32);
  const now = nowIso();
  await s.db.insert(oauthCodes).values({
    codeHash: await sha256Hex(code),
    clientId: request.clientId,
    customerId: request.customerId,
    userId: request.userId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: "S256",
    scope: request.scopes.join(" "),
    resource: request.resource,
    createdAt: now,
    expiresAt: addSeconds(now, CODE_TTL_SEC),
  });
  return code;
}

/** RFC 7636 section 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/**
 * Spends a code for `clientId`: refused (invalid_grant) when unknown, spent, expired, issued to
 * another client or redirect URI, or when the verifier does not match the challenge. A code
 * already spent by an exchange that started a grant revokes that grant, and with it every token
 * the code issued.
 */
export async function spendCode(
  s: Services,
  input: { code: string; clientId: string; redirectUri: string | undefined; verifier: string | undefined },
): Promise<SpentCode> {
  if (!input.verifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE)");
  if (!VERIFIER.test(input.verifier)) throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 unreserved characters");
  const now = nowIso();
  const codeHash = await sha256Hex(input.code);
  const [row] = await s.db
    .update(oauthCodes)
    .set({ usedAt: now, grantId: newId() })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning();
  if (!row) {
    const spent = await s.db.select({ grantId: oauthCodes.grantId }).from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).get();
    if (spent?.grantId) {
      await revokeGrant(s, spent.grantId, "code_replay");
      throw new OAuthError("invalid_grant", "the code was already used: the tokens it issued are revoked");
    }
    throw new OAuthError("invalid_grant", "the code is unknown or was already used");
  }
  const problem =
    row.expiresAt <= now
      ? "the code has expired"
      : row.clientId !== input.clientId
        ? "the code was issued to another client"
        : input.redirectUri !== row.redirectUri
          ? "redirect_uri differs from the authorization request's"
          : (await s256(input.verifier)) !== row.codeChallenge
            ? "code_verifier does not match the code_challenge"
            : null;
  if (problem) {
    // Spent all the same, but it started nothing: a later attempt with it has nothing to revoke.
    await s.db.update(oauthCodes).set({ grantId: null }).where(eq(oauthCodes.codeHash, codeHash));
    throw new OAuthError("invalid_grant", problem);
  }
  return {
    grantId: row.grantId!,
    customerId: row.customerId,
    userId: row.userId,
    scopes: (row.scope ?? "").split(" ").filter(Boolean),
    resource: row.resource ?? "",
    redirectUri: row.redirectUri,
  };
}

/** Cron: forgets codes past their expiry, spent or not (a late exchange finds nothing: invalid_grant all the same). */
export async function sweepExpiredCodes(s: Services, now: Date): Promise<void> {
  await s.db.delete(oauthCodes).where(lte(oauthCodes.expiresAt, now.toISOString()));
}
