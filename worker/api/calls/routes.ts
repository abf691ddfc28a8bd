import { createRoute } from "@hono/zod-openapi";
import {
  CallDetailSchema,
  CallIdParam,
  CallListQuery,
  CallListSchema,
  TransferRequestSchema,
  TransferSchema,
} from "../../resources/calls.ts";
import { getCall, listCalls, transferCall } from "../../services/calls.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

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

const transferRoute = createRoute({
  method: "post",
  path: "/calls/{call_id}/transfer",
  tags,
  summary: "Transfer an answered call to another number (platform bridge or SIP REFER, per the destination)",
  ...authenticated,
  request: { params: CallIdParam, ...jsonRequest(TransferRequestSchema) },
  responses: { 202: jsonBody(TransferSchema, "Transfer started"), ...errors(401, 404, 409, 422, 503) },
});

export function registerCalls(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listCalls(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(getRoute, async (c) => c.json(await getCall(c.var.services, c.var.principal, c.req.valid("param").call_id), 200));
  api.openapi(transferRoute, async (c) => {
    const { call_id } = c.req.valid("param");
    return c.json(await transferCall(c.var.services, c.var.principal, call_id, c.req.valid("json").target), 202);
  });
}
