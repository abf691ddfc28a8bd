// Authorization codes: issued when a person approves on the consent page, spent once at the
// token endpoint with the PKCE verifier (S256 only), bound to the client, the redirect URI and
// the resource. Stored only as hashes; a code is spent by one conditional update, so two
// exchanges of one code cannot both succeed.
import { and, eq, isNull, lte } from "drizzle-orm";
import { oauthCodes } from "../../schema/oauth.ts";
import { base64url, randomToken, sha256Hex } from "../lib/crypto.ts";
import { addSeconds, nowIso } from "../lib/time.ts";
import type { Services } from "./context.ts";
import { OAuthError } from "./oauth-errors.ts";

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

export type SpentCode = { customerId: string; userId: string; scopes: string[]; resource: string; redirectUri: string };

/**
 * Spends a code for `clientId`: refused (invalid_grant) when unknown, spent, expired, issued to
 * another client or redirect URI, or when the verifier does not match the challenge.
 */
export async function spendCode(
  s: Services,
  input: { code: string; clientId: string; redirectUri: string | undefined; verifier: string | undefined },
): Promise<SpentCode> {
  if (!input.verifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE)");
  if (!VERIFIER.test(input.verifier)) throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 unreserved characters");
  const now = nowIso();
  const [row] = await s.db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, await sha256Hex(input.code)), isNull(oauthCodes.usedAt)))
    .returning();
  if (!row) throw new OAuthError("invalid_grant", "the code is unknown or was already used");
  if (row.expiresAt <= now) throw new OAuthError("invalid_grant", "the code has expired");
  if (row.clientId !== input.clientId) throw new OAuthError("invalid_grant", "the code was issued to another client");
  if (input.redirectUri !== row.redirectUri) throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request's");
  if ((await s256(input.verifier)) !== row.codeChallenge)
    throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
  return {
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
