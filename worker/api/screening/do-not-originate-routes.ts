import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  AddDoNotOriginateSchema,
  AddedDoNotOriginateSchema,
  DoNotOriginateIdParam,
  DoNotOriginateListSchema,
  DoNotOriginateQuery,
  MAX_DNO_NUMBERS,
  MAX_DNO_PER_REQUEST,
} from "../../resources/screening.ts";
import { addDoNotOriginate, listDoNotOriginate, removeDoNotOriginate } from "../../services/screening/do-not-originate.ts";

const tags = ["Screening"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/screening/do-not-originate",
  tags,
  summary: "Numbers that never place calls, newest first",
  ...authenticated,
  request: { query: DoNotOriginateQuery },
  responses: { 200: jsonBody(DoNotOriginateListSchema, "Do-not-originate numbers"), ...errors(401, 422) },
});

const addRoute = createRoute({
  method: "post",
  path: "/customer/screening/do-not-originate",
  tags,
  summary: `Add one number, or up to ${MAX_DNO_PER_REQUEST} at once: a call claiming one as its caller ID matches rule do_not_originate`,
  description:
    `Numbers in international form, kept in E.164; one that is not a valid number refuses the whole request (422 naming each). ` +
    `A number already listed is left as it is. The list holds at most ${MAX_DNO_NUMBERS} numbers (409).`,
  ...authenticated,
  request: jsonRequest(AddDoNotOriginateSchema),
  responses: { 201: jsonBody(AddedDoNotOriginateSchema, "Added"), ...errors(401, 409, 422) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/customer/screening/do-not-originate/{entry_id}",
  tags,
  summary: "Take a number off the list",
  ...authenticated,
  request: { params: DoNotOriginateIdParam },
  responses: { ...noContent("Removed"), ...errors(401, 404) },
});

export function registerDoNotOriginate(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listDoNotOriginate(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(addRoute, async (c) => c.json(await addDoNotOriginate(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(deleteRoute, async (c) => {
    await removeDoNotOriginate(c.var.services, c.var.principal, c.req.valid("param").entry_id);
    return c.body(null, 204);
  });
}
