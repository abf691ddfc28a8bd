// Asking for a call's analysis now (a call the sampling left out, or a record-only one).
import { createRoute } from "@hono/zod-openapi";
import { AnalyzeQueuedSchema } from "../../resources/analysis.ts";
import { CallIdParam } from "../../resources/calls.ts";
import { analyseOnDemand } from "../../services/analysis/on-demand.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";

const analyzeRoute = createRoute({
  method: "post",
  path: "/calls/{call_id}/analyze",
  tags: ["Calls"],
  summary: "Transcribe and analyse a recorded call now; the analysis fee of the account's AI tier applies",
  description: "409 relay_only when nothing was recorded; 402 when the balance does not cover the fee.",
  ...authenticated,
  request: { params: CallIdParam },
  responses: { 202: jsonBody(AnalyzeQueuedSchema, "Queued"), ...errors(401, 402, 404, 409) },
});

export function registerCallAnalysis(api: Api) {
  api.openapi(analyzeRoute, async (c) => c.json(await analyseOnDemand(c.var.services, c.var.principal, c.req.valid("param").call_id), 202));
}
