import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { PutScreeningRulesSchema, ScreeningRulesSchema, ScreeningStatsSchema, type PutScreeningRules } from "../../resources/screening.ts";
import { getScreeningRules, putScreeningRules } from "../../services/screening/settings.ts";
import { screeningStats } from "../../services/screening/stats.ts";

const tags = ["Screening"];

const getRoute = createRoute({
  method: "get",
  path: "/customer/screening/rules",
  tags,
  summary: "Every screening rule with its action and thresholds, defaults filled in",
  ...authenticated,
  responses: { 200: jsonBody(ScreeningRulesSchema, "Screening rules"), ...errors(401) },
});

const putRoute = createRoute({
  method: "put",
  path: "/customer/screening/rules",
  tags,
  summary: "Set the screening rules: those named as given (a field left out takes its default), the others back to their defaults",
  description:
    "Applied to the next call admitted. A divert needs divert_destination_id, one of the account's destinations; thresholds have " +
    "ranges per rule. Anything refused (422, naming the field) stores nothing.",
  ...authenticated,
  request: jsonRequest(PutScreeningRulesSchema),
  responses: { 200: jsonBody(ScreeningRulesSchema, "Screening rules as stored"), ...errors(401, 422) },
});

const statsRoute = createRoute({
  method: "get",
  path: "/customer/screening/stats",
  tags,
  summary: "Calls each screening rule refused, diverted and flagged",
  ...authenticated,
  responses: { 200: jsonBody(ScreeningStatsSchema, "Counts per rule"), ...errors(401) },
});

export function registerScreeningRules(api: Api) {
  api.openapi(getRoute, async (c) => c.json(await getScreeningRules(c.var.services, c.var.principal), 200));
  api.openapi(putRoute, async (c) =>
    c.json(await putScreeningRules(c.var.services, c.var.principal, c.req.valid("json") as PutScreeningRules), 200),
  );
  api.openapi(statsRoute, async (c) => c.json(await screeningStats(c.var.services, c.var.principal), 200));
}
