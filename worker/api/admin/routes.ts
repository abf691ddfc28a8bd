// POST /admin/impersonate: a platform administrator acts as a customer account's owner.
import { createRoute } from "@hono/zod-openapi";
import { ImpersonateSchema } from "../../resources/admin.ts";
import { TokenResponseSchema } from "../../resources/auth.ts";
import { impersonate } from "../../services/admin.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const route = createRoute({
  method: "post",
  path: "/admin/impersonate",
  tags: ["Administration"],
  summary: "Act as a customer account's owner (platform administrators only)",
  description: "The access token lasts the usual 15 minutes and comes with no refresh cookie.",
  ...authenticated,
  request: jsonRequest(ImpersonateSchema),
  responses: { 200: jsonBody(TokenResponseSchema, "Impersonation session"), ...errors(401, 403, 404, 422) },
});

export function registerAdmin(api: Api) {
  api.openapi(route, async (c) => c.json(await impersonate(c.var.services, c.var.principal, c.req.valid("json")), 200));
}
