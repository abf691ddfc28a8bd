import { createRoute } from "@hono/zod-openapi";
import { CallIdParam } from "../../resources/calls.ts";
import { CallShareSchema, CallShareWithPasswordSchema, CreateShareSchema, ShareIdParam, ShareListSchema } from "../../resources/shares.ts";
import { createShare, listShares, revokeShare, rotateShare } from "../../services/support/shares.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const tags = ["Sharing"];

const createShareRoute = createRoute({
  method: "post",
  path: "/calls/{call_id}/share",
  tags,
  summary: "A password-protected public link to the call; the password is returned only now",
  ...authenticated,
  request: { params: CallIdParam, ...jsonRequest(CreateShareSchema) },
  responses: { 201: jsonBody(CallShareWithPasswordSchema, "Call share with its password"), ...errors(401, 404, 422) },
});

const listRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}/shares",
  tags,
  summary: "The call's share links, newest first (no passwords)",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(ShareListSchema, "Share list"), ...errors(401, 404, 422) },
});

const revokeRoute = createRoute({
  method: "delete",
  path: "/calls/shares/{share_id}",
  tags,
  summary: "Revoke a share link: it stops opening at once",
  ...authenticated,
  request: { params: ShareIdParam },
  responses: { 200: jsonBody(CallShareSchema, "Call share"), ...errors(401, 404, 422) },
});

const rotateRoute = createRoute({
  method: "post",
  path: "/calls/shares/{share_id}/rotate",
  tags,
  summary: "A new password for an active link; the old one, and every view opened with it, stop working",
  ...authenticated,
  request: { params: ShareIdParam },
  responses: { 200: jsonBody(CallShareWithPasswordSchema, "Call share with its new password"), ...errors(401, 404, 409, 422) },
});

export function registerShares(api: Api) {
  api.openapi(createShareRoute, async (c) =>
    c.json(await createShare(c.var.services, c.var.principal, c.req.valid("param").call_id, c.req.valid("json")), 201),
  );
  api.openapi(listRoute, async (c) => c.json(await listShares(c.var.services, c.var.principal, c.req.valid("param").call_id), 200));
  api.openapi(revokeRoute, async (c) => c.json(await revokeShare(c.var.services, c.var.principal, c.req.valid("param").share_id), 200));
  api.openapi(rotateRoute, async (c) => c.json(await rotateShare(c.var.services, c.var.principal, c.req.valid("param").share_id), 200));
}
