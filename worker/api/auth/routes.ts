import { createRoute, z } from "@hono/zod-openapi";
import { AccountSchema } from "../accounts/schemas.ts";
import { accountOut } from "../accounts/service.ts";
import { depsOf, type Api } from "../context.ts";
import { PasskeyEnrollSchema, PasskeyLoginSchema } from "../passkeys/schemas.ts";
import { relyingParty } from "../passkeys/relying-party.ts";
import { enrollPasskey, secondFactorChallenge, verifyPasskeyLogin } from "../passkeys/service.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { signedIn } from "./access.ts";
import { clientIp, isBrowser, issueSession, setRefreshCookie } from "./issue.ts";
import {
  LoginRequestSchema,
  SecondFactorSchema,
  SignupRequestSchema,
  SignupResponseSchema,
  TokenResponseSchema,
} from "./schemas.ts";
import { checkPassword, issueAccessToken, loadPrincipal, recordLogin, signup } from "./service.ts";
import { startFamily } from "./refresh-tokens.ts";
import { admitLoginAttempt, admitSignup } from "./throttle.ts";

const tags = ["Authentication"];
const browserHeader = z.object({
  "X-Client": z.string().optional().openapi({ description: "`web`: also set the shield_refresh cookie" }),
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
  api.openapi(signupRoute, async (c) => {
    const deps = depsOf(c);
    await admitSignup(c.env, c.var.config, clientIp(c));
    const principal = await signup(deps, c.req.valid("json"));
    await recordLogin(c.var.db, principal, clientIp(c));
    if (isBrowser(c)) setRefreshCookie(c, await startFamily(deps, principal));
    const account = await accountOut(c.env, c.var.db, c.var.config, principal);
    return c.json({ customer: account, ...(await issueAccessToken(c.var.config, principal)) }, 201);
  });

  api.openapi(loginRoute, async (c) => {
    const deps = depsOf(c);
    const input = c.req.valid("json");
    await admitLoginAttempt(c.env, c.var.config, clientIp(c), input.email.trim().toLowerCase());
    const principal = await checkPassword(deps, input);
    if (principal.customer.twofaEnabled) {
      const rp = relyingParty(c.req.url, c.var.config);
      return c.json(await secondFactorChallenge({ ...deps, rp }, principal), 200);
    }
    await recordLogin(c.var.db, principal, clientIp(c));
    return c.json(await issueSession(c, principal), 200);
  });

  api.openapi(passkeyLoginRoute, async (c) => {
    const deps = { db: c.var.db, config: c.var.config, rp: relyingParty(c.req.url, c.var.config) };
    const userId = await verifyPasskeyLogin(deps, c.req.valid("json"));
    const principal = await loadPrincipal(c.var.db, userId);
    await recordLogin(c.var.db, principal, clientIp(c));
    return c.json(await issueSession(c, principal), 200);
  });

  api.openapi(enrollRoute, async (c) => {
    const deps = { db: c.var.db, config: c.var.config, rp: relyingParty(c.req.url, c.var.config) };
    const userId = await enrollPasskey(deps, c.req.valid("json"));
    const principal = await loadPrincipal(c.var.db, userId);
    await recordLogin(c.var.db, principal, clientIp(c));
    return c.json(await issueSession(c, principal), 200);
  });

  api.openapi(meRoute, async (c) => c.json(await accountOut(c.env, c.var.db, c.var.config, c.var.principal), 200));
}
