// Signing up and signing in: password, passkey second factor, a member's first passkey.
import { createRoute, z } from "@hono/zod-openapi";
import { AccountSchema } from "../../resources/accounts.ts";
import {
  AuthConfigSchema,
  LoginRequestSchema,
  PASSWORD_MIN_LENGTH,
  SecondFactorSchema,
  SignupRequestSchema,
  SignupResponseSchema,
  TokenResponseSchema,
} from "../../resources/auth.ts";
import { PasskeyEnrollSchema, PasskeyLoginSchema } from "../../resources/passkeys.ts";
import { accountOut } from "../../services/accounts/accounts.ts";
import { checkPassword, issueAccessToken, normalizeEmail, recordLogin, signup } from "../../services/identity/auth.ts";
import { enrollPasskey, secondFactorChallenge, verifyPasskeyLogin } from "../../services/identity/passkeys.ts";
import { loadPrincipal } from "../../services/identity/principal.ts";
import { startFamily } from "../../services/identity/refresh-tokens.ts";
import { admitLoginAttempt, admitSignup } from "../../services/identity/sign-in-throttle.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { signedIn } from "./access.ts";
import { isBrowser, issueSession, setRefreshCookie } from "./session-cookie.ts";
import { clientIp } from "../../http/client-ip.ts";

const tags = ["Authentication"];
const browserHeader = z.object({
  "X-Client": z.string().optional().openapi({ description: "`web`: also set the shield_refresh cookie" }),
});

const configRoute = createRoute({
  method: "get",
  path: "/auth/config",
  tags,
  summary: "What the sign-in page needs to know",
  responses: { 200: jsonBody(AuthConfigSchema, "Auth config") },
});

const signupRoute = createRoute({
  method: "post",
  path: "/auth/signup",
  tags,
  summary: "Open an account",
  description: "Creates the account and its owner, credits the welcome balance and starts the pilot.",
  request: { ...jsonRequest(SignupRequestSchema), headers: browserHeader },
  responses: { 201: jsonBody(SignupResponseSchema, "Account opened"), ...errors(403, 409, 422, 429) },
});

const loginRoute = createRoute({
  method: "post",
  path: "/auth/login",
  tags,
  summary: "Sign in with e-mail and password",
  description:
    "Returns the token response, or for a two-factor account a passkey challenge (`login_token`) or, for a member without a passkey, an `enroll_token`.",
  request: { ...jsonRequest(LoginRequestSchema), headers: browserHeader },
  responses: {
    200: jsonBody(z.union([TokenResponseSchema, SecondFactorSchema]), "Signed in, or the second factor is due"),
    ...errors(401, 403, 422, 429),
  },
});

const passkeyLoginRoute = createRoute({
  method: "post",
  path: "/auth/login/passkey",
  tags,
  summary: "Complete a two-factor sign-in with a passkey assertion",
  request: { ...jsonRequest(PasskeyLoginSchema), headers: browserHeader },
  responses: { 200: jsonBody(TokenResponseSchema, "Signed in"), ...errors(401, 422) },
});

const enrollRoute = createRoute({
  method: "post",
  path: "/auth/login/passkey/enroll",
  tags,
  summary: "Enrol a member's first passkey and sign in",
  request: { ...jsonRequest(PasskeyEnrollSchema), headers: browserHeader },
  responses: { 200: jsonBody(TokenResponseSchema, "Enrolled and signed in"), ...errors(401, 409, 422) },
});

const meRoute = createRoute({
  method: "get",
  path: "/auth/me",
  tags,
  summary: "The account of the current session",
  ...signedIn,
  responses: { 200: jsonBody(AccountSchema, "Account"), ...errors(401) },
});

export function registerAuth(api: Api) {
  api.openapi(configRoute, (c) =>
    c.json(
      {
        signup_enabled: c.var.config.SIGNUP_ENABLED,
        password_min_length: PASSWORD_MIN_LENGTH,
        access_token_ttl_sec: c.var.config.ACCESS_TOKEN_TTL_SEC,
        session_idle_timeout_min: c.var.config.SESSION_IDLE_TIMEOUT_MIN,
      },
      200,
    ),
  );

  api.openapi(signupRoute, async (c) => {
    const s = c.var.services;
    await admitSignup(s, clientIp(c));
    const principal = await signup(s, c.req.valid("json"));
    await recordLogin(s.db, principal, clientIp(c));
    if (isBrowser(c)) setRefreshCookie(c, await startFamily(s, principal));
    return c.json({ customer: await accountOut(s, principal), ...(await issueAccessToken(s.config, principal)) }, 201);
  });

  api.openapi(loginRoute, async (c) => {
    const s = c.var.services;
    const input = c.req.valid("json");
    const ip = clientIp(c);
    await admitLoginAttempt(s, { ip, email: normalizeEmail(input.email) });
    const principal = await checkPassword(s, input, ip);
    if (principal.customer.twofaEnabled) return c.json(await secondFactorChallenge(s, principal), 200);
    await recordLogin(s.db, principal, clientIp(c));
    return c.json(await issueSession(c, principal), 200);
  });

  api.openapi(passkeyLoginRoute, async (c) => {
    const s = c.var.services;
    const principal = await loadPrincipal(s.db, await verifyPasskeyLogin(s, c.req.valid("json")));
    await recordLogin(s.db, principal, clientIp(c));
    return c.json(await issueSession(c, principal), 200);
  });

  api.openapi(enrollRoute, async (c) => {
    const s = c.var.services;
    const principal = await loadPrincipal(s.db, await enrollPasskey(s, c.req.valid("json")));
    await recordLogin(s.db, principal, clientIp(c));
    return c.json(await issueSession(c, principal), 200);
  });

  api.openapi(meRoute, async (c) => c.json(await accountOut(c.var.services, c.var.principal), 200));
}
