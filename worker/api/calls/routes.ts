import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";
import { CallDetailSchema, CallIdParam, CallListQuery, CallListSchema } from "./schemas.ts";
import { getCall, listCalls } from "./service.ts";

const tags = ["Calls"];

const listRoute = createRoute({
  method: "get",
  path: "/calls",
  tags,
  summary: "Calls, newest first",
  ...authenticated,
  request: { query: CallListQuery },
  responses: { 200: jsonBody(CallListSchema, "Call list"), ...errors(401, 422) },
});

const getRoute = createRoute({
  method: "get",
  path: "/calls/{call_id}",
  tags,
  summary: "One call with everything the signalling and billing know",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 200: jsonBody(CallDetailSchema, "Call detail"), ...errors(401, 404) },
});

export function registerCalls(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listCalls(c.var.db, c.var.principal, c.req.valid("query")), 200));
  api.openapi(getRoute, async (c) => c.json(await getCall(c.var.db, c.var.principal, c.req.valid("param").call_id), 200));
}
