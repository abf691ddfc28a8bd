// Who may call a route, declared on the route itself:
//   ...authenticated             BK: a bearer token or an API key, password not pending change
//   ...signedIn                  BK even while a temporary password awaits its change
//   ...notImpersonated           BK, never inside an administrator's impersonation
//   ...ownerOnly                 BKO: the account owner (members get 403 owner_required)
//   ...ownerOnlyNotImpersonated  both
import type { MiddlewareHandler } from "hono";
import { forbidden } from "../../lib/errors.ts";
import type { AppEnv } from "../context.ts";
import { requireAuth } from "./principal.ts";

const security = [{ BearerAuth: [] }, { ApiKeyAuth: [] }] as Record<string, string[]>[];

export const requireOwner: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.user.role !== "owner") throw forbidden("owner_required");
  await next();
};

export const forbidImpersonation: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.impersonatedBy) throw forbidden("impersonation_forbidden");
  await next();
};

/** A member holding a temporary password may only see who they are and change it. */
export const requirePasswordCurrent: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.principal.user.mustChangePassword) throw forbidden("password_change_required");
  await next();
};

export const signedIn = { middleware: requireAuth, security };
export const authenticated = { middleware: [requireAuth, requirePasswordCurrent], security };
export const notImpersonated = { middleware: [requireAuth, forbidImpersonation], security };
export const ownerOnly = { middleware: [requireAuth, requirePasswordCurrent, requireOwner], security };
export const ownerOnlyNotImpersonated = {
  middleware: [requireAuth, requirePasswordCurrent, requireOwner, forbidImpersonation],
  security,
};
