// GET and POST /oauth/authorize: the person's side of the code flow. GET checks the request and
// shows the sign-in or the consent page; POST signs in (e-mail and password, or a portal access
// token) or records the decision: approve issues a code, deny answers access_denied, both by a
// 302 to the client's redirect URI with `state` and `iss`. Every POST carries the CSRF token that
// matches its cookie, and a cross-site Origin is refused.
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../http/app-env.ts";
import { clientIp } from "../http/client-ip.ts";
import { randomToken, timingSafeEqual } from "../lib/crypto.ts";
import { signStepToken, verifyStepToken } from "../lib/tokens.ts";
import { checkPassword, normalizeEmail } from "../services/identity/auth.ts";
import { DomainError } from "../services/errors.ts";
import { issueCode } from "../services/oauth/codes.ts";
import { fromAccessToken, loadPrincipal, type Principal } from "../services/identity/principal.ts";
import { admitLoginAttempt } from "../services/identity/sign-in-throttle.ts";
import {
  checkAuthorizationRequest,
  redirectBack,
  REQUEST_FIELDS,
  type AuthorizationRequest,
  type Checked,
} from "./authorization-request.ts";
import { consentPage, errorPage, signInPage, type PageContext } from "./consent-page.ts";

const CSRF_COOKIE = "__Host-oauth_csrf";
const SESSION_COOKIE = "__Host-oauth_session";
const SESSION_PURPOSE = "oauth-session";
/** Long enough to read the consent page; the portal session is not extended by it. */
const SESSION_TTL_SEC = 600;

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

const html = (c: Context<AppEnv>, body: string, status: 200 | 400 | 403 | 429 = 200, headers: Record<string, string> = {}) =>
  c.html(body, status, { ...PAGE_HEADERS, ...headers });

function csrfOf(c: Context<AppEnv>): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing && existing.length >= 32) return existing;
  const token = randomToken(32);
  setCookie(c, CSRF_COOKIE, token, { httpOnly: true, secure: true, sameSite: "Strict", path: "/" });
  return token;
}

async function sessionOf(c: Context<AppEnv>): Promise<Principal | null> {
  const token = getCookie(c, SESSION_COOKIE);
  const claims = token ? await verifyStepToken(SESSION_PURPOSE, token, c.var.config.JWT_SECRET) : null;
  if (!claims) return null;
  try {
    const principal = await loadPrincipal(c.var.db, claims.sub);
    return principal.customer.id === claims.cid && principal.customer.status !== "suspended" ? principal : null;
  } catch {
    return null;
  }
}

async function startSession(c: Context<AppEnv>, principal: Principal): Promise<void> {
  const token = await signStepToken(
    SESSION_PURPOSE,
    { sub: principal.user.id, cid: principal.customer.id, challenge: "" },
    c.var.config.JWT_SECRET,
    SESSION_TTL_SEC,
  );
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, secure: true, sameSite: "Lax", path: "/", maxAge: SESSION_TTL_SEC });
}

const fieldsOf = (params: Record<string, string | undefined>) => Object.fromEntries(REQUEST_FIELDS.map((f) => [f, params[f]]));

/**
 * A person with no account yet signs up in the portal, which brings them back to this request (the
 * same authorize address and parameters) once the account exists. Null when sign-up is closed.
 */
function signUpHref(c: Context<AppEnv>, page: PageContext): string | null {
  if (!c.var.config.SIGNUP_ENABLED) return null;
  const query = new URLSearchParams(Object.entries(page.fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const back = `${new URL(c.req.url).pathname}?${query}`;
  return `/app/sign-up?return_to=${encodeURIComponent(back)}`;
}

async function show(c: Context<AppEnv>, request: AuthorizationRequest, params: Record<string, string | undefined>, error?: string) {
  const page: PageContext = { csrf: csrfOf(c), fields: fieldsOf(params) };
  const principal = await sessionOf(c);
  if (!principal) return html(c, signInPage(request, page, error, signUpHref(c, page)));
  return html(c, consentPage(request, page, principal.user.email));
}

/** A request that is not valid: on our page until it may be answered by a redirect to the client (authorization-request.ts). */
function refused(c: Context<AppEnv>, checked: Exclude<Checked, { ok: true }>): Response {
  if ("redirect" in checked) return c.redirect(redirectOf(c, checked.redirect), 302);
  const retry: Record<string, string> = checked.retryAfterSec ? { "Retry-After": String(checked.retryAfterSec) } : {};
  return html(c, errorPage(checked.page), checked.status, retry);
}

export async function getAuthorize(c: Context<AppEnv>): Promise<Response> {
  const params = c.req.query();
  const checked = await checkAuthorizationRequest(c.var.services, params, clientIp(c));
  if (!checked.ok) return refused(c, checked);
  return show(c, checked.request, params);
}

const redirectOf = (c: Context<AppEnv>, r: { uri: string; state: string | undefined; error: string; description: string }) =>
  redirectBack(r.uri, c.var.services.origin, { error: r.error, error_description: r.description, state: r.state });

/** A form posted from another site (or a token that does not match its cookie) is refused outright. */
function csrfProblem(c: Context<AppEnv>, posted: string | undefined): string | null {
  const origin = c.req.header("Origin");
  if (origin && origin !== "null" && origin !== c.var.services.origin) return "This form was sent from another site.";
  const cookie = getCookie(c, CSRF_COOKIE);
  if (!cookie || !posted) return "The form expired; open the authorization link again.";
  const enc = new TextEncoder();
  return timingSafeEqual(enc.encode(cookie), enc.encode(posted)) ? null : "The form expired; open the authorization link again.";
}

export async function postAuthorize(c: Context<AppEnv>): Promise<Response> {
  const body = await c.req.parseBody({ all: true });
  const one = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : undefined);
  const problem = csrfProblem(c, one("csrf"));
  if (problem) return html(c, errorPage(problem), 403);
  const params = Object.fromEntries(REQUEST_FIELDS.map((f) => [f, one(f)]));
  const checked = await checkAuthorizationRequest(c.var.services, params, clientIp(c));
  if (!checked.ok) return refused(c, checked);
  const request = checked.request;

  if (one("action") === "sign_in") return signIn(c, request, params, one);
  const principal = await sessionOf(c);
  if (!principal) return show(c, request, params, "Your sign-in expired; sign in again.");
  const issuer = c.var.services.origin;
  if (one("action") === "deny") {
    return c.redirect(
      redirectBack(request.redirectUri, issuer, {
        error: "access_denied",
        error_description: "the person denied the request",
        state: request.state,
      }),
      302,
    );
  }
  if (one("action") !== "approve") return show(c, request, params);
  const ticked = ([] as unknown[]).concat(body.grant_scope ?? []).filter((s): s is string => typeof s === "string");
  const scopes = request.scopes.filter((scope) => ticked.includes(scope));
  if (scopes.length === 0) {
    return c.redirect(
      redirectBack(request.redirectUri, issuer, {
        error: "access_denied",
        error_description: "no scope was granted",
        state: request.state,
      }),
      302,
    );
  }
  const code = await issueCode(c.var.services, {
    clientId: request.client.clientId,
    customerId: principal.customer.id,
    userId: principal.user.id,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scopes,
    resource: request.resource,
  });
  return c.redirect(redirectBack(request.redirectUri, issuer, { code, state: request.state }), 302);
}

/** Signs the person in on this page; a refusal shows the page again with the reason. */
async function signIn(
  c: Context<AppEnv>,
  request: AuthorizationRequest,
  params: Record<string, string | undefined>,
  one: (key: string) => string | undefined,
): Promise<Response> {
  const s = c.var.services;
  let principal: Principal | null;
  const portalToken = one("access_token");
  try {
    if (portalToken) {
      principal = await fromAccessToken(s.db, portalToken, s.config.JWT_SECRET);
      if (!principal) return show(c, request, params, "Your portal session has expired; sign in again.");
    } else {
      const email = one("email") ?? "";
      const password = one("password") ?? "";
      await admitLoginAttempt(s, { ip: clientIp(c), email: normalizeEmail(email) });
      principal = await checkPassword(s, { email, password }, clientIp(c));
      if (principal.customer.twofaEnabled) {
        return show(c, request, params, "This account signs in with a second factor: open the authorization from the portal.");
      }
    }
  } catch (err) {
    if (err instanceof DomainError) return show(c, request, params, err.detail);
    throw err;
  }
  if (principal.impersonatedBy) return show(c, request, params, "An administrator's impersonation cannot authorize agents.");
  if (principal.customer.status === "suspended") return show(c, request, params, "Account suspended");
  if (principal.user.mustChangePassword) return show(c, request, params, "Choose your own password in the portal first.");
  await startSession(c, principal);
  return html(c, consentPage(request, { csrf: csrfOf(c), fields: fieldsOf(params) }, principal.user.email));
}
