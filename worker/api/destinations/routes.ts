import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  CreateDestinationSchema,
  DestIdParam,
  DestinationSchema,
  UpdateDestinationSchema,
  VoiceProviderSchema,
} from "../../resources/destinations.ts";
import { listVoiceProviders } from "../../resources/voice-providers.ts";
import { checkDestination } from "../../services/trunk/destination-monitor.ts";
import { createDestination, deleteDestination, listDestinations, updateDestination } from "../../services/trunk/destinations.ts";

const tags = ["Destinations"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/destinations",
  tags,
  summary: "The account's destinations, newest first (secrets never included)",
  ...authenticated,
  responses: { 200: jsonBody(z.array(DestinationSchema), "Destinations"), ...errors(401) },
});

const createDestinationRoute = createRoute({
  method: "post",
  path: "/customer/destinations",
  tags,
  summary: "Add a destination: a SIP endpoint or a voice-AI agent",
  description:
    "A voice_ai destination takes its provider's host, port and transport unless given, and gets an inbound webhook URL. " +
    "auth_password, webhook_secret and provider_api_key are stored encrypted and never returned. At most 50 per account.",
  ...authenticated,
  request: jsonRequest(CreateDestinationSchema),
  responses: { 201: jsonBody(DestinationSchema, "Created"), ...errors(401, 409, 422) },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/customer/destinations/{dest_id}",
  tags,
  summary: "Change a destination; clear_* switches remove stored secrets, rotate_webhook_token issues a new webhook URL",
  ...authenticated,
  request: { params: DestIdParam, ...jsonRequest(UpdateDestinationSchema) },
  responses: { 200: jsonBody(DestinationSchema, "Updated"), ...errors(401, 404, 422) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/customer/destinations/{dest_id}",
  tags,
  summary: "Delete a destination; whitelist entries pointing to it fall back to routing, its routing rules go",
  ...authenticated,
  request: { params: DestIdParam },
  responses: { ...noContent("Deleted"), ...errors(401, 404) },
});

const voiceProvidersRoute = createRoute({
  method: "get",
  path: "/customer/voice-providers",
  tags,
  summary: "Voice-AI providers a voice_ai destination can use, with their SIP defaults",
  ...authenticated,
  responses: { 200: jsonBody(z.array(VoiceProviderSchema), "Voice providers"), ...errors(401) },
});

const checkRoute = createRoute({
  method: "post",
  path: "/customer/destinations/{dest_id}/check",
  tags,
  summary: "Send one SIP OPTIONS now and report the monitor fields (waits 4 s at most)",
  ...authenticated,
  request: { params: DestIdParam },
  responses: { 200: jsonBody(DestinationSchema, "Destination with refreshed monitor fields"), ...errors(401, 404) },
});

export function registerDestinations(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listDestinations(c.var.services, c.var.principal), 200));
  api.openapi(createDestinationRoute, async (c) =>
    c.json(await createDestination(c.var.services, c.var.principal, c.req.valid("json")), 201),
  );
  api.openapi(updateRoute, async (c) =>
    c.json(await updateDestination(c.var.services, c.var.principal, c.req.valid("param").dest_id, c.req.valid("json")), 200),
  );
  api.openapi(deleteRoute, async (c) => {
    await deleteDestination(c.var.services, c.var.principal, c.req.valid("param").dest_id);
    return c.body(null, 204);
  });
  api.openapi(checkRoute, async (c) => c.json(await checkDestination(c.var.services, c.var.principal, c.req.valid("param").dest_id), 200));
  api.openapi(voiceProvidersRoute, (c) => c.json(listVoiceProviders(), 200));
}
