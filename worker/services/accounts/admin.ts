// Platform administrators. An administrator (the owner of an account whose role is admin,
// signed in in person) starts an impersonation of a customer account; the session it gets acts
// as that account's owner, reports impersonated_by, and may not touch credentials.
import { and, eq } from "drizzle-orm";
import { auditLog, users } from "../../../schema/identity.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { tokenResponse } from "../identity/auth.ts";
import type { Services } from "../context.ts";
import { Forbidden, NotFound } from "../errors.ts";
import { loadPrincipal, sessionRole, type Principal } from "../identity/principal.ts";

/**
 * A platform administrator acting in person (a signed-in session, never an API key or an
 * impersonation): who may impersonate, and who answers support tickets.
 */
export function requirePlatformAdmin(admin: Principal): void {
  if (sessionRole(admin) !== "admin" || admin.via !== "token") throw new Forbidden("admin_required");
}

export async function impersonate(s: Services, admin: Principal, input: { customer_id: string; reason?: string | null | undefined }) {
  requirePlatformAdmin(admin);
  const owner = await s.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.customerId, input.customer_id), eq(users.role, "owner")))
    .get();
  if (!owner) throw new NotFound("Customer not found");
  const principal = await loadPrincipal(s.db, owner.id, admin.user.email);
  await s.db.insert(auditLog).values({
    id: newId(),
    customerId: input.customer_id,
    actorUserId: admin.user.id,
    actorLabel: `${admin.user.email} (administrator)`,
    action: "impersonation.started",
    detail: { reason: input.reason ?? null },
    createdAt: nowIso(),
  });
  return tokenResponse(s, principal);
}
