import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { MAX_EVENTS_PER_CALL, PortalEventsResultSchema, PortalEventsSchema } from "../../resources/events.ts";
import { recordPortalEvents } from "../../services/accounts/portal-events.ts";

const eventsRoute = createRoute({
  method: "post",
  path: "/customer/events",
  tags: ["Account"],
  summary: "The portal reports browser activity: page_view (props.path) and feature_used (props.name)",
  description:
    `Up to ${MAX_EVENTS_PER_CALL} events per call (more is 422, nothing stored). Only the portal path is stored, never a query ` +
    "string, fragment or form value. The answer carries only the count stored.",
  ...authenticated,
  request: jsonRequest(PortalEventsSchema),
  responses: { 200: jsonBody(PortalEventsResultSchema, "Stored"), ...errors(401, 422) },
});

export function registerPortalEvents(api: Api) {
  api.openapi(eventsRoute, async (c) => c.json(await recordPortalEvents(c.var.services, c.var.principal, c.req.valid("json")), 200));
}
