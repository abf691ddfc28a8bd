import { createRoute } from "@hono/zod-openapi";
import { LeadAcceptedSchema, LeadSchema } from "../../resources/leads.ts";
import { submitLead } from "../../services/support/leads.ts";
import { clientIp } from "../../http/client-ip.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const leadRoute = createRoute({
  method: "post",
  path: "/public/leads",
  tags: ["Public"],
  summary: "Request a setup call: stored and mailed to the service team",
  description: "Limited per source address (429 with Retry-After).",
  security: [],
  request: jsonRequest(LeadSchema),
  responses: { 202: jsonBody(LeadAcceptedSchema, "Received"), ...errors(422, 429) },
});

export function registerLeads(api: Api) {
  api.openapi(leadRoute, async (c) => c.json(await submitLead(c.var.services, c.req.valid("json"), clientIp(c)), 202));
}
