import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";
import { DashboardQuery, DashboardSchema, StatsQuery, StatsSchema } from "../../resources/dashboard.ts";
import { dashboardOf, statsOf } from "../../services/calls/dashboard.ts";

const tags = ["Dashboard"];

const dashboardRoute = createRoute({
  method: "get",
  path: "/customer/dashboard",
  tags,
  summary: "Calls, risk, spend and countries over the last `days` UTC calendar days",
  ...authenticated,
  request: { query: DashboardQuery },
  responses: { 200: jsonBody(DashboardSchema, "Dashboard"), ...errors(401, 422) },
});

const statsRoute = createRoute({
  method: "get",
  path: "/customer/stats",
  tags,
  summary: "Totals of the calls started between `from` and `to` (all the account's calls without them)",
  ...authenticated,
  request: { query: StatsQuery },
  responses: { 200: jsonBody(StatsSchema, "Stats"), ...errors(401, 422) },
});

export function registerDashboard(api: Api) {
  api.openapi(dashboardRoute, async (c) => c.json(await dashboardOf(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(statsRoute, async (c) => c.json(await statsOf(c.var.services, c.var.principal, c.req.valid("query")), 200));
}
