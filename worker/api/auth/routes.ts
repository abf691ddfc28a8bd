import { createRoute } from "@hono/zod-openapi";
import { AccountSchema } from "../accounts/schemas.ts";
import { accountOut, sessionCustomerOut } from "../accounts/service.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { authenticated } from "./principal.ts";
import { LoginRequestSchema, SignupRequestSchema, SignupResponseSchema, TokenResponseSchema } from "./schemas.ts";
import { checkPassword, issueAccessToken, recordLogin, signup } from "./service.ts";

const tags = ["Authentication"];

const signupRoute = createRoute({
  method: "post",
  path: "/auth/signup",
  tags,
  summary: "Open an account",
  description: "Creates the account and its owner, credits the welcome balance and starts the pilot.",
  request: jsonRequest(SignupRequestSchema),
  responses: { 201: jsonBody(SignupResponseSchema, "Account opened"), ...errors(403, 409, 422, 429) },
});

const loginRoute = createRoute({
  method: "post",
  path: "/auth/login",
  tags,
  summary: "Sign in with e-mail and password",
  request: jsonRequest(LoginRequestSchema),
  responses: { 200: jsonBody(TokenResponseSchema, "Signed in"), ...errors(401, 403, 422, 429) },
});

const meRoute = createRoute({
  method: "get",
  path: "/auth/me",
  tags,
  summary: "The account of the current session",
  ...authenticated,
  responses: { 200: jsonBody(AccountSchema, "Account"), ...errors(401) },
});

const clientIp = (header: (name: string) => string | undefined) => header("CF-Connecting-IP") ?? null;

export function registerAuth(api: Api) {
  api.openapi(signupRoute, async (c) => {
    const deps = { env: c.env, db: c.var.db, config: c.var.config };
    const principal = await signup(deps, c.req.valid("json"));
    const account = await accountOut(c.env, c.var.db, c.var.config, principal);
    return c.json({ customer: account, ...(await issueAccessToken(c.var.config, principal)) }, 201);
  });

  api.openapi(loginRoute, async (c) => {
    const deps = { env: c.env, db: c.var.db, config: c.var.config };
    const principal = await checkPassword(deps, c.req.valid("json"));
    await recordLogin(deps, principal, clientIp((n) => c.req.header(n)));
    return c.json({ ...(await issueAccessToken(c.var.config, principal)), customer: sessionCustomerOut(principal) }, 200);
  });

  api.openapi(meRoute, async (c) => c.json(await accountOut(c.env, c.var.db, c.var.config, c.var.principal), 200));
}
