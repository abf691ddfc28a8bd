import { createRoute, z } from "@hono/zod-openapi";
import { AiModeRequestSchema } from "../../resources/analysis.ts";
import { AccountAiTierSchema, AiTierSchema, PlanSchema } from "../../resources/catalogue.ts";
import { listAiTiers, listAiTiersOf, listPlans, setAiMode } from "../../services/billing/catalogue.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

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

const accountAiModesRoute = createRoute({
  method: "get",
  path: "/customer/ai-modes",
  tags: ["Plans and billing"],
  summary: "The AI tiers, the account's marked current",
  ...authenticated,
  responses: { 200: jsonBody(z.array(AccountAiTierSchema), "Tiers"), ...errors(401) },
});

const setAiModeRoute = createRoute({
  method: "put",
  path: "/customer/ai-mode",
  tags: ["Plans and billing"],
  summary: "Choose the account's AI tier: calls analysed from now on use it, running calls keep theirs",
  ...authenticated,
  request: jsonRequest(AiModeRequestSchema),
  responses: { 200: jsonBody(AccountAiTierSchema, "The tier now in use"), ...errors(401, 422) },
});

export function registerCatalogue(api: Api) {
  api.openapi(plansRoute, async (c) => c.json(await listPlans(c.var.services), 200));
  api.openapi(aiModesRoute, async (c) => c.json(await listAiTiers(c.var.services), 200));
  api.openapi(accountAiModesRoute, async (c) => c.json(await listAiTiersOf(c.var.services, c.var.principal), 200));
  api.openapi(setAiModeRoute, async (c) => c.json(await setAiMode(c.var.services, c.var.principal, c.req.valid("json").mode), 200));
}
