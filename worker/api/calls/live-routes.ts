import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";
import { LiveCallsSchema } from "../../resources/calls.ts";
import { liveCallsOf } from "../../services/calls/live.ts";

const liveCallsRoute = createRoute({
  method: "get",
  path: "/customer/live-calls",
  tags: ["Dashboard"],
  summary: "Calls up now (ringing or active), newest first",
  description: "Read from the account's call ledger, so a call shows here from its admission, before its record reaches GET /calls.",
  ...authenticated,
  responses: { 200: jsonBody(LiveCallsSchema, "Live calls"), ...errors(401) },
});

export function registerLiveCalls(api: Api) {
  api.openapi(liveCallsRoute, async (c) => c.json(await liveCallsOf(c.var.services, c.var.principal), 200));
}
