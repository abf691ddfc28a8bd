// POST /admin/impersonate: a platform administrator acts as a customer account's owner.
// POST /admin/ips/{ip_id}/approve: a platform administrator approves a whitelist range (our extension).
// GET and PATCH /admin/customers/{customer_id}/placed-call-policy: what one account's placed calls may ring, and their caps (our extension).
import { createRoute } from "@hono/zod-openapi";
import { CustomerIdParam, ImpersonateSchema, PlacedCallPolicySchema, PlacedCallPolicyUpdateSchema } from "../../resources/admin.ts";
import { TokenResponseSchema } from "../../resources/auth.ts";
import { IpEntrySchema, IpIdParam } from "../../resources/whitelist.ts";
import { impersonate } from "../../services/accounts/admin.ts";
import { getPlacedCallPolicy, updatePlacedCallPolicy } from "../../services/placed-calls/placed-calls.ts";
import { approveIpEntry } from "../../services/trunk/whitelist.ts";
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

const POLICY_DESCRIPTION =
  "Calls the platform places for an account (test, verification and web-dialer calls) never ring premium-rate or " +
  "high-cost ranges unless a prefix here allows them, and are capped per day (calls and talk minutes; a new " +
  "account's caps are tighter). Administrators only.";

const getPolicyRoute = createRoute({
  method: "get",
  path: "/admin/customers/{customer_id}/placed-call-policy",
  tags: ["Administration"],
  summary: "What one account's placed calls may ring, and their daily caps (our extension; administrators only)",
  description: POLICY_DESCRIPTION,
  ...authenticated,
  request: { params: CustomerIdParam },
  responses: { 200: jsonBody(PlacedCallPolicySchema, "Policy"), ...errors(401, 403, 404) },
});

const patchPolicyRoute = createRoute({
  method: "patch",
  path: "/admin/customers/{customer_id}/placed-call-policy",
  tags: ["Administration"],
  summary: "Allow ranges to one account's placed calls, or set its own daily caps (our extension; administrators only)",
  description: POLICY_DESCRIPTION + " A field left out keeps its value; a null cap returns to the configured one.",
  ...authenticated,
  request: { params: CustomerIdParam, ...jsonRequest(PlacedCallPolicyUpdateSchema) },
  responses: { 200: jsonBody(PlacedCallPolicySchema, "Policy"), ...errors(401, 403, 404, 422) },
});

export function registerAdmin(api: Api) {
  api.openapi(getPolicyRoute, async (c) =>
    c.json(await getPlacedCallPolicy(c.var.services, c.var.principal, c.req.valid("param").customer_id), 200),
  );
  api.openapi(patchPolicyRoute, async (c) =>
    c.json(await updatePlacedCallPolicy(c.var.services, c.var.principal, c.req.valid("param").customer_id, c.req.valid("json")), 200),
  );
  api.openapi(route, async (c) => c.json(await impersonate(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(approveIpRoute, async (c) => c.json(await approveIpEntry(c.var.services, c.var.principal, c.req.valid("param").ip_id), 200));
}
