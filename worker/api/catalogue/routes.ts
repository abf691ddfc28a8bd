import { createRoute, z } from "@hono/zod-openapi";
import type { Api } from "../context.ts";
import { jsonBody } from "../responses.ts";
import { AiTierSchema, PlanSchema } from "../../resources/catalogue.ts";
import { listAiTiers, listPlans } from "../../services/catalogue.ts";

const plansRoute = createRoute({
  method: "get",
  path: "/plans",
  tags: ["Plans and billing"],
  summary: "The plan ladder",
  responses: { 200: jsonBody(z.array(PlanSchema), "Active plans, cheapest first") },
});

const aiModesRoute = createRoute({
  method: "get",
  path: "/ai-modes",
  tags: ["Plans and billing"],
  summary: "AI analysis tiers and their per-call fees",
  responses: { 200: jsonBody(z.array(AiTierSchema), "Active tiers") },
});

export function registerCatalogue(api: Api) {
  api.openapi(plansRoute, async (c) => c.json(await listPlans(c.var.services), 200));
  api.openapi(aiModesRoute, async (c) => c.json(await listAiTiers(c.var.services), 200));
}
