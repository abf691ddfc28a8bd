import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";
import { DialerSessionRequestSchema, DialerSessionSchema } from "../../resources/dialer.ts";
import { mintDialerSession } from "../../services/placed-calls/dialer.ts";

const sessionRoute = createRoute({
  method: "post",
  path: "/customer/dialer/session",
  tags: ["Account"],
  summary: "Mint the short-lived, single-use token the web dialer presents on its INVITE",
  description:
    "The token, not the whitelist, admits the call placed with it over the SIP node's WebSocket listener; the call is otherwise treated like a production call. 403 dialer_disabled when the account's dialer is off.",
  ...authenticated,
  // The body is optional: without one, a call with no caller ID.
  request: { body: { required: false, content: { "application/json": { schema: DialerSessionRequestSchema } } } },
  responses: { 200: jsonBody(DialerSessionSchema, "Dialer token"), ...errors(401, 403, 422) },
});

export function registerDialer(api: Api) {
  api.openapi(sessionRoute, async (c) => c.json(await mintDialerSession(c.var.services, c.var.principal, c.req.valid("json") ?? {}), 200));
}
