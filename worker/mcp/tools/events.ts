// Where verdicts go: the account's signed webhook, alert rules, and the connected channels.
import { z } from "@hono/zod-openapi";
import { AlertChannelSchema, AlertRuleSchema, CreateAlertRuleSchema } from "../../resources/alerts.ts";
import { PutWebhookSchema, WebhookSchema, WebhookTestResultSchema } from "../../resources/webhook.ts";
import { listAlertChannels } from "../../services/alert-channels.ts";
import { createAlertRule } from "../../services/alert-rules.ts";
import { putWebhook, testWebhook } from "../../services/webhook.ts";
import { pageArgs, pageOfAll, pageOutput } from "../pages.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const setWebhookTool = defineTool({
  name: "set_webhook",
  title: "Set the webhook",
  description:
    "Set the account's one signed webhook: an https URL on a public address and its signing secret (whsec_<base64>, or " +
    "any string of 16+ characters). It replaces the URL set before; null removes it, an absent field leaves it. The " +
    "secret is never shown again (secret_set). Then call test_webhook.",
  scope: MCP_SCOPES.configWrite,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: PutWebhookSchema,
  output: WebhookSchema,
  run: ({ services, principal }, args) => putWebhook(services, principal, args),
  summary: (w) =>
    w.url ? `Webhook set to ${w.url}${w.secret_set ? "" : " (no secret yet: events are not sent until one is set)"}.` : "No webhook.",
});

export const testWebhookTool = defineTool({
  name: "test_webhook",
  title: "Send a test webhook event",
  description:
    "Send one signed webhook.test event to the account's webhook now and report delivered, status_code, error and " +
    "latency_ms. error webhook_not_configured means no URL or no secret is set (set_webhook).",
  scope: MCP_SCOPES.configWrite,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z.object({}),
  output: WebhookTestResultSchema,
  run: ({ services, principal }) => testWebhook(services, principal),
  summary: (r) =>
    r.delivered ? `Delivered (HTTP ${r.status_code}, ${r.latency_ms} ms).` : `Not delivered: ${r.error ?? `HTTP ${r.status_code}`}.`,
});

export const addAlertRuleTool = defineTool({
  name: "add_alert_rule",
  title: "Add an alert rule",
  description:
    "Alert by e-mail and/or connected channels (list_channels) when a verdict reaches min_probability (0-100), " +
    "optionally only for some categories or recommendations, at most once per throttle_minutes; trigger quality with " +
    "max_mos alerts on call quality instead. The rule needs a delivery: email_enabled or channel_ids.",
  scope: MCP_SCOPES.configWrite,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: CreateAlertRuleSchema,
  output: AlertRuleSchema,
  run: ({ services, principal }, args) => createAlertRule(services, principal, args),
  summary: (r) => `Alert rule ${r.id} "${r.name}" added.`,
});

export const listChannelsTool = defineTool({
  name: "list_channels",
  title: "List alert channels",
  description:
    "The account's connected alert channels (Slack incoming webhooks, JSON webhooks); their ids go in an alert rule's " +
    "channel_ids. URLs are write-only: only url_host is shown.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object(pageArgs),
  output: pageOutput(AlertChannelSchema),
  run: async ({ services, principal }, args) => pageOfAll(await listAlertChannels(services, principal), args),
  summary: (page) => `${page.total} channel(s).`,
});
