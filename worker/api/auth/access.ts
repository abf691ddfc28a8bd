// Who may call a route, declared on the route itself:
//   ...authenticated             BK: a bearer token or an API key, password not pending change
//   ...signedIn                  BK even while a temporary password awaits its change
//   ...notImpersonated           BK, never inside an administrator's impersonation
//   ...ownerOnly                 BKO: the account owner (members get 403 owner_required)
//   ...credentialManagement      the owner in person: a portal session (bearer access token, never an
//                                API key), not inside an impersonation (minting keys, passkeys, members)
//   ...authenticatedOrRecordingToken  BK, or a recording token in `t` bound to the call in the path
//   ...authenticatedOrMediaToken(file)  BK, or a media token for that file (pcap, sip-ladder) of the call in the path
import type { MiddlewareHandler } from "hono";
import { type MediaFileKind, verifyMediaToken } from "../../lib/tokens.ts";
import { Forbidden, Unauthenticated } from "../../services/errors.ts";
import { fromAccessToken, fromApiKey, fromSignedClaims, type Principal } from "../../services/identity/principal.ts";
import type { AppEnv } from "../../http/app-env.ts";

const security = [{ BearerAuth: [] }, { ApiKeyAuth: [] }] as Record<string, string[]>[];

function admit(c: Parameters<MiddlewareHandler<AppEnv>>[0], principal: Principal | null, why?: string): void {
  if (!principal) throw new Unauthenticated(why);
  if (principal.customer.status === "suspended") throw new Forbidden("Account suspended");
  c.set("principal", principal);
}

/** A bearer access token or an X-API-Key names the principal. */
export const requireAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { db, config } = c.var.services;
  const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("Authorization") ?? "")?.[1];
  const apiKey = c.req.header("X-API-Key");
  admit(c, bearer ? await fromAccessToken(db, bearer, config.JWT_SECRET) : apiKey ? await fromApiKey(db, apiKey) : null);
  await next();
};

export const requireOwner: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.user.role !== "owner") throw new Forbidden("owner_required");
  await next();
};

export const forbidImpersonation: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.impersonatedBy) throw new Forbidden("impersonation_forbidden");
  await next();
};

/**
 * Credentials are managed by a person signed into the portal: an API key (a script's credential,
 * the one most likely to leak) may not mint keys, remove passkeys or invite and reset members.
 */
export const requirePortalSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.via !== "token") throw new Forbidden("portal_session_required");
  await next();
};

/** A member holding a temporary password may only see who they are and change it. */
export const requirePasswordCurrent: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.user.mustChangePassword) throw new Forbidden("password_change_required");
  await next();
};

/**
 * For players and links that cannot send an Authorization header: a media token for `file` in `t`
 * stands in for the credential, good only for that file of the call in the path. A `t` that does
 * not verify (tampered, expired, minted for another call or another file, an access token) is 401
 * whatever else the request carries; without `t` the usual bearer token or API key applies.
 */
const requireAuthOrMediaToken =
  (file: MediaFileKind, why: string): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const t = c.req.query("t");
    if (!t) return requireAuth(c, next);
    const claims = await verifyMediaToken(t, c.var.config.JWT_SECRET, file);
    const principal = claims && claims.call === c.req.param("call_id") ? await fromSignedClaims(c.var.db, claims, "media_token") : null;
    admit(c, principal, why);
    await next();
  };

export const requireAuthOrRecordingToken = requireAuthOrMediaToken("recording", "Invalid or expired recording token");

export const signedIn = { middleware: requireAuth, security };
export const authenticated = { middleware: [requireAuth, requirePasswordCurrent], security };
export const notImpersonated = { middleware: [requireAuth, forbidImpersonation], security };
export const ownerOnly = { middleware: [requireAuth, requirePasswordCurrent, requireOwner], security };
export const credentialManagement = {
  middleware: [requireAuth, requirePasswordCurrent, requireOwner, forbidImpersonation, requirePortalSession],
  security,
};
export const authenticatedOrRecordingToken = {
  middleware: [requireAuthOrRecordingToken, requirePasswordCurrent],
  security: [...security, { RecordingToken: [] }],
};
/** A call's file behind a short-lived link (report_links): the credential, or that file's media token. */
export const authenticatedOrMediaToken = (file: Exclude<MediaFileKind, "recording">) => ({
  middleware: [requireAuthOrMediaToken(file, "Invalid or expired link token"), requirePasswordCurrent],
  security: [...security, { MediaLinkToken: [] }],
});
