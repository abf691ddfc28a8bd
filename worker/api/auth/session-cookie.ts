// A session over HTTP: the access token in the body and, for a browser (header X-Client: web),
// a refresh family in the shield_refresh cookie (the spec's name; the __Secure-shield_refresh we sent
// before is still read for a release, and replaced whenever the cookie is set or cleared).
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { tokenResponse } from "../../services/identity/auth.ts";
import type { Principal } from "../../services/identity/principal.ts";
import { LEGACY_REFRESH_COOKIE, REFRESH_COOKIE, startFamily } from "../../services/identity/refresh-tokens.ts";
import type { AppEnv } from "../../http/app-env.ts";

const COOKIE_PATH = "/api/auth";

export const isBrowser = (c: Context<AppEnv>) => c.req.header("X-Client")?.toLowerCase() === "web";

const ATTRIBUTES = { httpOnly: true, secure: true, sameSite: "Strict", path: COOKIE_PATH } as const;

/** A browser still holding the old name has it cleared, so it keeps one cookie, under the spec's name. */
function clearLegacyCookie(c: Context<AppEnv>): void {
  if (getCookie(c, LEGACY_REFRESH_COOKIE) !== undefined) deleteCookie(c, LEGACY_REFRESH_COOKIE, ATTRIBUTES);
}

export function setRefreshCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, REFRESH_COOKIE, token, { ...ATTRIBUTES, maxAge: c.var.config.REFRESH_TOKEN_TTL_DAYS * 86_400 });
  clearLegacyCookie(c);
}

/** The refresh token: under the spec's name, else under the old one. */
export const refreshCookieOf = (c: Context<AppEnv>) => getCookie(c, REFRESH_COOKIE) || getCookie(c, LEGACY_REFRESH_COOKIE) || null;

export function clearRefreshCookie(c: Context<AppEnv>): void {
  deleteCookie(c, REFRESH_COOKIE, ATTRIBUTES);
  clearLegacyCookie(c);
}

/** Token response for a completed sign-in; a browser also gets the refresh cookie. */
export async function issueSession(c: Context<AppEnv>, principal: Principal) {
  if (isBrowser(c) && !principal.impersonatedBy) setRefreshCookie(c, await startFamily(c.var.services, principal));
  return tokenResponse(c.var.services, principal);
}
