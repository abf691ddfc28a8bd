// POST /admin/impersonate: a platform administrator acts as a customer account's owner.
// POST /admin/ips/{ip_id}/approve: a platform administrator approves a whitelist range (our extension).
import { createRoute } from "@hono/zod-openapi";
import { ImpersonateSchema } from "../../resources/admin.ts";
import { TokenResponseSchema } from "../../resources/auth.ts";
import { IpEntrySchema, IpIdParam } from "../../resources/whitelist.ts";
import { impersonate } from "../../services/admin.ts";
import { approveIpEntry } from "../../services/whitelist.ts";
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

const approveIpRoute = createRoute({
  method: "post",
  path: "/admin/ips/{ip_id}/approve",
  tags: ["Administration"],
  summary: "Approve a whitelist entry of any account as if its control were proven (our extension; administrators only)",
  description:
    "For a carrier whose range is wider than /24 (IPv6 /48) and cannot send an OPTIONS from it: the entry admits " +
    "calls and displaces other accounts' unverified overlapping entries.",
  ...authenticated,
  request: { params: IpIdParam },
  responses: { 200: jsonBody(IpEntrySchema, "Approved"), ...errors(401, 403, 404, 409, 503) },
});

export function registerAdmin(api: Api) {
  api.openapi(route, async (c) => c.json(await impersonate(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(approveIpRoute, async (c) => c.json(await approveIpEntry(c.var.services, c.var.principal, c.req.valid("param").ip_id), 200));
}
