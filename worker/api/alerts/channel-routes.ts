// /customer/alert-channels: our extension of the spec (which names connected channels in alert
// rules but not how they are managed).
import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  AlertChannelSchema,
  ChannelIdParam,
  ChannelTestResultSchema,
  CreateAlertChannelSchema,
  MAX_ALERT_CHANNELS,
  UpdateAlertChannelSchema,
} from "../../resources/alerts.ts";
import {
  createAlertChannel,
  deleteAlertChannel,
  listAlertChannels,
  testAlertChannel,
  updateAlertChannel,
} from "../../services/alerts/channels.ts";

const tags = ["Alerts"];
const EXTENSION = "Our extension of the published API (the spec names connected channels in alert rules, not how they are managed).";

const listRoute = createRoute({
  method: "get",
  path: "/customer/alert-channels",
  tags,
  summary: "Connected alert channels (Slack incoming webhooks, generic JSON webhooks)",
  description: `${EXTENSION} URLs are write-only: only their host is shown.`,
  ...authenticated,
  responses: { 200: jsonBody(z.array(AlertChannelSchema), "Alert channels"), ...errors(401) },
});

const createChannelRoute = createRoute({
  method: "post",
  path: "/customer/alert-channels",
  tags,
  summary: "Connect a channel alert rules can name in channel_ids",
  description:
    `${EXTENSION} kind slack posts a Block Kit message to a Slack incoming webhook URL; kind webhook posts the alert as JSON. ` +
    `The URL must be https and lead to a public address; it is stored encrypted and never returned. At most ${MAX_ALERT_CHANNELS} per account.`,
  ...authenticated,
  request: jsonRequest(CreateAlertChannelSchema),
  responses: { 201: jsonBody(AlertChannelSchema, "Created"), ...errors(401, 409, 422) },
});

const updateChannelRoute = createRoute({
  method: "patch",
  path: "/customer/alert-channels/{channel_id}",
  tags,
  summary: "Change a channel's label, URL or enabled switch",
  description: EXTENSION,
  ...authenticated,
  request: { params: ChannelIdParam, ...jsonRequest(UpdateAlertChannelSchema) },
  responses: { 200: jsonBody(AlertChannelSchema, "Changed"), ...errors(401, 404, 422) },
});

const deleteChannelRoute = createRoute({
  method: "delete",
  path: "/customer/alert-channels/{channel_id}",
  tags,
  summary: "Remove a channel (rules naming it skip it)",
  description: EXTENSION,
  ...authenticated,
  request: { params: ChannelIdParam },
  responses: { ...noContent("Deleted"), ...errors(401, 404) },
});

const testChannelRoute = createRoute({
  method: "post",
  path: "/customer/alert-channels/{channel_id}/test",
  tags,
  summary: "Post a connection-test message to the channel now",
  description: `${EXTENSION} Always 200 for a channel of the account; sent and error say what happened.`,
  ...authenticated,
  request: { params: ChannelIdParam },
  responses: { 200: jsonBody(ChannelTestResultSchema, "What the channel answered"), ...errors(401, 404) },
});

export function registerAlertChannels(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listAlertChannels(c.var.services, c.var.principal), 200));
  api.openapi(createChannelRoute, async (c) => c.json(await createAlertChannel(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(updateChannelRoute, async (c) =>
    c.json(await updateAlertChannel(c.var.services, c.var.principal, c.req.valid("param").channel_id, c.req.valid("json")), 200),
  );
  api.openapi(deleteChannelRoute, async (c) => {
    await deleteAlertChannel(c.var.services, c.var.principal, c.req.valid("param").channel_id);
    return c.body(null, 204);
  });
  api.openapi(testChannelRoute, async (c) =>
    c.json(await testAlertChannel(c.var.services, c.var.principal, c.req.valid("param").channel_id), 200),
  );
}
