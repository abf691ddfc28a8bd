import { createRoute } from "@hono/zod-openapi";
import { authenticated, credentialManagement } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { InviteResultSchema, InviteSchema, UpdateUserSchema, UserIdParam, UserListSchema, UserSchema } from "../../resources/users.ts";
import { inviteUser, listUsers, resendInvite, updateUser } from "../../services/accounts/users.ts";

const tags = ["Users"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/users",
  tags,
  summary: "Users of the account",
  ...authenticated,
  responses: { 200: jsonBody(UserListSchema, "User list"), ...errors(401) },
});

const inviteRoute = createRoute({
  method: "post",
  path: "/customer/users",
  tags,
  summary: "Invite a member (a temporary password goes by e-mail)",
  ...credentialManagement,
  request: jsonRequest(InviteSchema),
  responses: { 201: jsonBody(InviteResultSchema, "Invited"), ...errors(401, 403, 409, 422) },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/customer/users/{user_id}",
  tags,
  summary: "Rename, deactivate or reactivate a member",
  ...credentialManagement,
  request: { params: UserIdParam, ...jsonRequest(UpdateUserSchema) },
  responses: { 200: jsonBody(UserSchema, "Updated"), ...errors(400, 401, 403, 404, 422) },
});

const resendRoute = createRoute({
  method: "post",
  path: "/customer/users/{user_id}/resend-invite",
  tags,
  summary: "Send a new temporary password (the old one stops working)",
  ...credentialManagement,
  request: { params: UserIdParam },
  responses: { 200: jsonBody(InviteResultSchema, "Sent"), ...errors(400, 401, 403, 404) },
});

export function registerUsers(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listUsers(c.var.services, c.var.principal), 200));
  api.openapi(inviteRoute, async (c) => c.json(await inviteUser(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(updateRoute, async (c) =>
    c.json(await updateUser(c.var.services, c.var.principal, c.req.valid("param").user_id, c.req.valid("json")), 200),
  );
  api.openapi(resendRoute, async (c) => c.json(await resendInvite(c.var.services, c.var.principal, c.req.valid("param").user_id), 200));
}
