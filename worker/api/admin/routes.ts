// Platform administrators. An administrator (the owner of an account whose role is admin,
// signed in in person) starts an impersonation of a customer account here; the session it
// gets acts as that account's owner, reports impersonated_by, and may not touch credentials.
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { auditLog, users } from "../../../schema/identity.ts";
import { forbidden, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { authenticated } from "../auth/access.ts";
import { sessionRole } from "../auth/principal.ts";
import { TokenResponseSchema } from "../auth/schemas.ts";
import { issueAccessToken, loadPrincipal } from "../auth/service.ts";
import { sessionCustomerOut } from "../accounts/service.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const ImpersonateSchema = z
  .object({
    customer_id: z.uuid(),
    reason: z.string().max(500).nullable().optional().openapi({ example: "Ticket 1042: routing question" }),
  })
  .openapi("Impersonate");

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
  api.openapi(route, async (c) => {
    const admin = c.var.principal;
    if (sessionRole(admin) !== "admin" || admin.via !== "token") throw forbidden("admin_required");
    const { customer_id, reason } = c.req.valid("json");
    const owner = await c.var.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.customerId, customer_id), eq(users.role, "owner")))
      .get();
    if (!owner) throw notFound("Customer not found");
    const principal = await loadPrincipal(c.var.db, owner.id, admin.user.email);
    await c.var.db.insert(auditLog).values({
      id: newId(),
      customerId: customer_id,
      actorUserId: admin.user.id,
      actorLabel: `${admin.user.email} (administrator)`,
      action: "impersonation.started",
      detail: { reason: reason ?? null },
      createdAt: nowIso(),
    });
    return c.json({ ...(await issueAccessToken(c.var.config, principal)), customer: sessionCustomerOut(principal) }, 200);
  });
}
