// Where an agent starts: the account's onboarding state as a checklist, each step with the tool
// that does it, read from the same services as the portal's pages.
import { z } from "@hono/zod-openapi";
import { INGRESS_TRANSPORTS, NetworkInfoSchema } from "../../resources/whitelist.ts";
import { listAlertRules } from "../../services/alerts/rules.ts";
import { listDestinations } from "../../services/trunk/destinations.ts";
import { listRoutingRules } from "../../services/trunk/routing.ts";
import { getWebhook } from "../../services/webhooks/account-webhook.ts";
import { listIpEntries } from "../../services/trunk/whitelist.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY, type ToolContext } from "../tool.ts";
import { portalUrl } from "./portal-links.ts";

const StepSchema = z.object({
  step: z.string(),
  done: z.boolean(),
  detail: z.string(),
  tool: z.string().describe("The tool that does this step"),
});

const GetStartedSchema = z.object({
  account: z.object({ id: z.uuid(), company: z.string().nullable(), status: z.string() }),
  ingress: NetworkInfoSchema.describe("Where the carrier sends its SIP traffic"),
  steps: z.array(StepSchema),
  next_step: StepSchema.nullable().describe("The first step not done yet; null when the account is set up"),
});

async function checklist({ services, principal }: ToolContext) {
  const [destinations, entries, rules, webhook, alerts] = await Promise.all([
    listDestinations(services, principal),
    listIpEntries(services, principal),
    listRoutingRules(services, principal),
    getWebhook(services, principal),
    listAlertRules(services, principal),
  ]);
  const admitting = entries.filter((e) => e.admits_calls).length;
  const up = destinations.filter((d) => d.monitor_status === "up").length;
  const hasDefault = destinations.some((d) => d.is_default);
  return [
    {
      step: "Add where calls go",
      done: destinations.length > 0,
      detail: `${destinations.length} destination(s)${hasDefault ? ", one is the default" : destinations.length ? ", none is the default" : ""}`,
      tool: "add_destination",
    },
    {
      step: "Check a destination answers SIP OPTIONS",
      done: up > 0,
      detail: `${up} of ${destinations.length} destination(s) answered`,
      tool: "check_destination",
    },
    {
      step: "Whitelist the carrier's SBC addresses",
      done: admitting > 0,
      detail: `${entries.length} whitelist entr${entries.length === 1 ? "y" : "ies"}, ${admitting} admitting calls`,
      tool: "whitelist_ip",
    },
    {
      step: "Route by dialed prefix (optional with a default destination)",
      done: rules.length > 0 || hasDefault,
      detail: `${rules.length} routing rule(s)`,
      tool: "add_routing_rule",
    },
    {
      step: "Receive verdicts on your webhook",
      done: Boolean(webhook.url && webhook.secret_set),
      detail: webhook.url
        ? `${webhook.url}${webhook.secret_set ? "" : ` (no signing secret yet: a person sets it at ${portalUrl(services, "/alerts")})`}`
        : "no webhook",
      tool: "set_webhook",
    },
    { step: "Alert people on fraud", done: alerts.length > 0, detail: `${alerts.length} alert rule(s)`, tool: "add_alert_rule" },
  ];
}

export const getStartedTool = defineTool({
  name: "get_started",
  title: "Get started",
  description:
    "Start here. The account's onboarding checklist (destinations, OPTIONS check, whitelist, routing, webhook, alerts) " +
    "with what is done, the tool for each step, and where the carrier sends its SIP traffic (ingress host, port, transports).",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object({}),
  output: GetStartedSchema,
  run: async (ctx) => {
    const steps = await checklist(ctx);
    const { customer } = ctx.principal;
    const { INGRESS_HOST, INGRESS_PORT } = ctx.services.config;
    return {
      account: { id: customer.id, company: customer.company, status: customer.status },
      ingress: { ingress_host: INGRESS_HOST, ingress_port: INGRESS_PORT, transports: INGRESS_TRANSPORTS },
      steps,
      next_step: steps.find((s) => !s.done) ?? null,
    };
  },
  summary: (r) => (r.next_step ? `Next: ${r.next_step.step} (${r.next_step.tool}).` : "The account is set up."),
});
