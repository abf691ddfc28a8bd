import { createRoute, z } from "@hono/zod-openapi";
import { credentialManagement } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  PasskeyIdParam,
  PasskeySchema,
  RegistrationBeginSchema,
  RegistrationCompleteSchema,
  RenamePasskeySchema,
  UserIdParam,
} from "../../resources/passkeys.ts";
import {
  beginRegistration,
  completeRegistration,
  deletePasskey,
  listPasskeys,
  removeMemberPasskeys,
  renamePasskey,
} from "../../services/identity/passkeys.ts";

const tags = ["Passkeys"];
const access = credentialManagement;

const listRoute = createRoute({
  method: "get",
  path: "/auth/passkeys",
  tags,
  summary: "The owner's passkeys",
  ...access,
  responses: { 200: jsonBody(z.array(PasskeySchema), "Passkeys"), ...errors(401, 403) },
});

const renameRoute = createRoute({
  method: "patch",
  path: "/auth/passkeys/{passkey_id}",
  tags,
  summary: "Rename a passkey",
  ...access,
  request: { params: PasskeyIdParam, ...jsonRequest(RenamePasskeySchema) },
  responses: { 200: jsonBody(PasskeySchema, "Renamed"), ...errors(401, 403, 404, 422) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/auth/passkeys/{passkey_id}",
  tags,
  summary: "Delete a passkey (the last one turns two-factor sign-in off)",
  ...access,
  request: { params: PasskeyIdParam },
  responses: { ...noContent(), ...errors(401, 403, 404) },
});

const memberRoute = createRoute({
  method: "delete",
  path: "/auth/passkeys/members/{user_id}",
  tags,
  summary: "Remove a member's passkeys; they enrol a new one at the next sign-in",
  ...access,
  request: { params: UserIdParam },
  responses: { ...noContent(), ...errors(401, 403, 404) },
});

const beginRoute = createRoute({
  method: "post",
  path: "/auth/passkeys/register/begin",
  tags,
  summary: "Start registering a passkey",
  ...access,
  responses: { 200: jsonBody(RegistrationBeginSchema, "Creation options and state"), ...errors(401, 403) },
});

const completeRoute = createRoute({
  method: "post",
  path: "/auth/passkeys/register/complete",
  tags,
  summary: "Finish registering a passkey (turns two-factor sign-in on)",
  ...access,
  request: jsonRequest(RegistrationCompleteSchema),
  responses: { 201: jsonBody(PasskeySchema, "Registered"), ...errors(400, 401, 403, 409, 422) },
});

export function registerPasskeys(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listPasskeys(c.var.services, c.var.principal), 200));

  api.openapi(renameRoute, async (c) =>
    c.json(await renamePasskey(c.var.services, c.var.principal, c.req.valid("param").passkey_id, c.req.valid("json").name), 200),
  );

  api.openapi(deleteRoute, async (c) => {
    await deletePasskey(c.var.services, c.var.principal, c.req.valid("param").passkey_id);
    return c.body(null, 204);
  });

  api.openapi(memberRoute, async (c) => {
    await removeMemberPasskeys(c.var.services, c.var.principal, c.req.valid("param").user_id);
    return c.body(null, 204);
  });

  api.openapi(beginRoute, async (c) => {
    return c.json(await beginRegistration(c.var.services, c.var.principal), 200);
  });

  api.openapi(completeRoute, async (c) => {
    return c.json(await completeRegistration(c.var.services, c.var.principal, c.req.valid("json")), 201);
  });
}
