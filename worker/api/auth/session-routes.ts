// Keeping and ending sessions: refresh, logout, logout-all, change-password.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ChangePasswordSchema, TokenResponseSchema } from "../../resources/auth.ts";
import { changePassword, logoutAll, tokenResponse } from "../../services/identity/auth.ts";
import { Unauthenticated } from "../../services/errors.ts";
import { endBrowserSession, rotate } from "../../services/identity/refresh-tokens.ts";
import type { Api } from "../context.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import { notImpersonated } from "./access.ts";
import { clearRefreshCookie, refreshCookieOf, setRefreshCookie } from "./session-cookie.ts";

const tags = ["Authentication"];
const cookieAuth = z.object({
  "X-Requested-With": z.string().optional().openapi({ description: "Must be `XMLHttpRequest`", example: "XMLHttpRequest" }),
});

/** RC access: the refresh cookie plus X-Requested-With, which a cross-site form cannot send. */
function requireXhr(c: Context<AppEnv>): void {
  if (c.req.header("X-Requested-With") !== "XMLHttpRequest") throw new Unauthenticated();
}

const refreshRoute = createRoute({
  method: "post",
  path: "/auth/refresh",
  tags,
  summary: "A new access token from the refresh cookie (rotates the cookie)",
  request: { headers: cookieAuth },
  responses: { 200: jsonBody(TokenResponseSchema, "Renewed"), ...errors(401) },
});

const logoutRoute = createRoute({
  method: "post",
  path: "/auth/logout",
  tags,
  summary: "End this browser's session family and clear the cookie",
  request: { headers: cookieAuth },
  responses: { ...noContent(), ...errors(401) },
});

const logoutAllRoute = createRoute({
  method: "post",
  path: "/auth/logout-all",
  tags,
  summary: "Sign out everywhere (a member: only themselves; the owner: every user)",
  ...notImpersonated,
  responses: { ...noContent(), ...errors(401, 403) },
});

const changePasswordRoute = createRoute({
  method: "post",
  path: "/auth/change-password",
  tags,
  summary: "Change the password; other sessions end, this browser renews through /auth/refresh",
  ...notImpersonated,
  request: jsonRequest(ChangePasswordSchema),
  responses: { ...noContent(), ...errors(400, 401, 403, 422) },
});

export function registerSessions(api: Api) {
  api.openapi(refreshRoute, async (c) => {
    requireXhr(c);
    const token = refreshCookieOf(c);
    if (!token) throw new Unauthenticated();
    const { principal, nextToken } = await rotate(c.var.services, token);
    if (nextToken) setRefreshCookie(c, nextToken);
    return c.json(await tokenResponse(c.var.services, principal), 200);
  });

  api.openapi(logoutRoute, async (c) => {
    requireXhr(c);
    await endBrowserSession(c.var.services, refreshCookieOf(c));
    clearRefreshCookie(c);
    return c.body(null, 204);
  });

  api.openapi(logoutAllRoute, async (c) => {
    await logoutAll(c.var.services, c.var.principal);
    clearRefreshCookie(c);
    return c.body(null, 204);
  });

  api.openapi(changePasswordRoute, async (c) => {
    await changePassword(c.var.services, c.var.principal, c.req.valid("json"), refreshCookieOf(c));
    return c.body(null, 204);
  });
}
