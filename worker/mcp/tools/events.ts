// Where verdicts go: the account's signed webhook, alert rules, and the connected channels.
import { z } from "@hono/zod-openapi";
import { AlertChannelSchema, AlertRuleSchema, CreateAlertRuleSchema } from "../../resources/alerts.ts";
import { PutWebhookSchema, WebhookSchema, WebhookTestResultSchema } from "../../resources/webhook.ts";
import { listAlertChannels } from "../../services/alerts/channels.ts";
import { createAlertRule } from "../../services/alerts/rules.ts";
import type { Services } from "../../services/context.ts";
import { InvalidField } from "../../services/errors.ts";
import { checkUrlForm } from "../../services/outbound-guard.ts";
import { getWebhook, putWebhook, testWebhook } from "../../services/webhooks/account-webhook.ts";
import { pageArgs, pageOfAll, pageOutput } from "../pages.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { ignoredNote, ignoredSecrets, NO_SECRETS, portalUrl, secretFields } from "./portal-links.ts";

/** The URL as PUT /customer/webhook checks it (the same 422), without storing it. */
function checkWebhookUrl(services: Services, url: string) {
  const form = checkUrlForm(url, services.config.OUTBOUND_ALLOW_LOOPBACK);
  if (!form.ok)
    throw new InvalidField("url", form.error === "url_not_https" ? "url must use https" : `url refused: ${form.error}`, form.error);
}

/** set_webhook takes the URL only: the signing secret is typed by a person on the alerts page. */
const SetWebhookSchema = PutWebhookSchema.pick({ url: true });

const SetWebhookResultSchema = WebhookSchema.extend({
  url_saved: z
    .boolean()
    .describe(
      "The URL given is stored. false when none was given, or when the account has no signing secret yet: a webhook is " +
        "only stored with its secret, so a person sets both at secret_url (the URL filled in there)",
    ),
  ...secretFields,
});

export const setWebhookTool = defineTool({
  name: "set_webhook",
  title: "Set the webhook",
  description:
    "Set the URL of the account's one signed webhook: https on a public address. It replaces the URL set before; null " +
    `removes it, an absent url leaves it. ${NO_SECRETS} Every event is signed with the webhook's signing secret, which a ` +
    "person sets on the alerts page: while none is set, the URL is not stored (url_saved false) and secret_url opens " +
    "that page with the URL filled in. Once secret_set is true, call test_webhook.",
  scope: MCP_SCOPES.configWrite,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: SetWebhookSchema,
  // Taken, so a secret sent anyway reaches run() and is named as ignored instead of vanishing unseen.
  ignoredArguments: ["secret"],
  output: SetWebhookResultSchema,
  run: async ({ services, principal }, args) => {
    const ignored_secrets = ignoredSecrets(args, ["secret"]);
    const current = await getWebhook(services, principal);
    const url = args.url;
    if (url === undefined || (url && !current.secret_set)) {
      // Refused as PUT would refuse it, before a person is sent to the page with it.
      if (url) checkWebhookUrl(services, url);
      const page = url ? `/alerts?webhook_url=${encodeURIComponent(url)}` : "/alerts";
      return { ...current, url_saved: false, secret_url: portalUrl(services, page), ignored_secrets };
    }
    const saved = await putWebhook(services, principal, { url });
    return { ...saved, url_saved: true, secret_url: portalUrl(services, "/alerts"), ignored_secrets };
  },
  summary: (w) => {
    const ignored = ignoredNote(w.ignored_secrets);
    if (!w.url_saved && !w.secret_set) {
      return `Not stored yet: a webhook needs its signing secret, which a person sets at ${w.secret_url}.${ignored}`;
    }
    if (!w.url) return `No webhook.${ignored}`;
    return (
      `Webhook ${w.url_saved ? "set to" : "is"} ${w.url}; ${w.secret_set ? "its signing secret is set" : "no signing secret yet"} ` +
      `(a person changes it at ${w.secret_url}).${ignored}`
    );
  },
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
