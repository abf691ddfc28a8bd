import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import {
  CliCheckIdParam,
  CliCheckListQuery,
  CliCheckListSchema,
  CliCheckSchema,
  CoverageSchema,
  CreateCliCheckSchema,
} from "../../resources/cli-checks.ts";
import { createCliCheck, getCliCheck, listCliChecks } from "../../services/cli-checks/checks.ts";
import { coverage } from "../../services/cli-checks/coverage.ts";

const tags = ["CLI checks"];

const coverageRoute = createRoute({
  method: "get",
  path: "/customer/cli/coverage",
  tags,
  summary: "The countries where a CLI check can be placed now, and its fee",
  description: "Countries where the platform holds a number that takes checks: its own, and live numbers its users host.",
  ...authenticated,
  responses: { 200: jsonBody(CoverageSchema, "Coverage"), ...errors(401) },
});

const createCheckRoute = createRoute({
  method: "post",
  path: "/customer/cli/checks",
  tags,
  summary: "Prove what caller ID a route delivers: a short call through a destination to a number the platform holds",
  description:
    "The platform calls a number it holds in `country` through `destination_id`, presenting `caller_id` (one of the " +
    "account's verified numbers; left out: the platform's own), and reads what arrived: match, modified (format, prefix " +
    "or digits; sent and received side by side), withheld, missing, or not_received (the call never arrived within the " +
    "timeout). Poll GET /customer/cli/checks/{check_id}. The fee is charged once (refunded when the platform could not " +
    "place the call); the call's minutes are billed as any call (origin test).",
  ...authenticated,
  request: jsonRequest(CreateCliCheckSchema),
  responses: { 202: jsonBody(CliCheckSchema, "Placing"), ...errors(401, 402, 403, 404, 422, 429) },
});

const listChecksRoute = createRoute({
  method: "get",
  path: "/customer/cli/checks",
  tags,
  summary: "CLI checks, newest first",
  ...authenticated,
  request: { query: CliCheckListQuery },
  responses: { 200: jsonBody(CliCheckListSchema, "CLI checks"), ...errors(401, 422) },
});

const getCheckRoute = createRoute({
  method: "get",
  path: "/customer/cli/checks/{check_id}",
  tags,
  summary: "One CLI check: its result once known, what was sent and received, timing and quality",
  ...authenticated,
  request: { params: CliCheckIdParam },
  responses: { 200: jsonBody(CliCheckSchema, "CLI check"), ...errors(401, 404) },
});

export function registerCliChecks(api: Api) {
  api.openapi(coverageRoute, async (c) => c.json(await coverage(c.var.services), 200));
  api.openapi(createCheckRoute, async (c) => c.json(await createCliCheck(c.var.services, c.var.principal, c.req.valid("json")), 202));
  api.openapi(listChecksRoute, async (c) => c.json(await listCliChecks(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(getCheckRoute, async (c) => c.json(await getCliCheck(c.var.services, c.var.principal, c.req.valid("param").check_id), 200));
}
