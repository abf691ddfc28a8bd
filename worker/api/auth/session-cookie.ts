// A session over HTTP: the access token in the body and, for a browser (header X-Client: web),
// a refresh family in the __Secure-shield_refresh cookie.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { tokenResponse } from "../../services/auth.ts";
import type { Principal } from "../../services/principal.ts";
import { REFRESH_COOKIE, startFamily } from "../../services/refresh-tokens.ts";
import type { AppEnv } from "../context.ts";

const COOKIE_PATH = "/api/auth";

export const isBrowser = (c: Context<AppEnv>) => c.req.header("X-Client")?.toLowerCase() === "web";

/** The address the request came from, as Cloudflare's edge reports it. */
export const clientIp = (c: Context<AppEnv>) => c.req.header("CF-Connecting-IP") ?? "unknown";

export function setRefreshCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, REFRESH_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: COOKIE_PATH,
    maxAge: c.var.config.REFRESH_TOKEN_TTL_DAYS * 86_400,
  });
}

export const refreshCookieOf = (c: Context<AppEnv>) => getCookie(c, REFRESH_COOKIE) ?? null;

export function clearRefreshCookie(c: Context<AppEnv>): void {
  deleteCookie(c, REFRESH_COOKIE, { path: COOKIE_PATH, secure: true, httpOnly: true, sameSite: "Strict" });
}

/** Token response for a completed sign-in; a browser also gets the refresh cookie. */
export async function issueSession(c: Context<AppEnv>, principal: Principal) {
  if (isBrowser(c) && !principal.impersonatedBy) setRefreshCookie(c, await startFamily(c.var.services, principal));
  return tokenResponse(c.var.services, principal);
}
