// Where an agent starts: the account's onboarding state as a checklist, each step with the tool
// that does it, read from the same services as the portal's pages. Without a credential it
// answers the general onboarding instead (issue 31): what the service does, its prices, where the
// carrier sends its calls, and how to sign in, which every other tool needs.
import { z } from "@hono/zod-openapi";
import { AiTierSchema, PlanSchema } from "../../resources/catalogue.ts";
import { INGRESS_TRANSPORTS, NetworkInfoSchema } from "../../resources/whitelist.ts";
import { listAlertRules } from "../../services/alerts/rules.ts";
import { listAiTiers, listPlans } from "../../services/billing/catalogue.ts";
import type { Services } from "../../services/context.ts";
import { DEFAULT_PLAN, PILOT_DAYS, PILOT_MINUTES } from "../../services/identity/auth.ts";
import { mcpResourceUrl, resourceMetadataUrl } from "../../services/oauth/access.ts";
import { listDestinations } from "../../services/trunk/destinations.ts";
import { listRoutingRules } from "../../services/trunk/routing.ts";
import { listIpEntries } from "../../services/trunk/whitelist.ts";
import { getWebhook } from "../../services/webhooks/account-webhook.ts";
import { ALL_MCP_SCOPES, MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY, type ToolContext } from "../tool.ts";
import { portalUrl } from "./portal-links.ts";

const StepSchema = z.object({
  step: z.string(),
  done: z.boolean(),
  detail: z.string(),
  tool: z.string().nullable().describe("The tool that does this step; null for signing in, which the MCP client does"),
});

const SERVICE =
  "Call Shield screens a carrier's SIP calls for fraud. The carrier sends its calls to the platform's SIP ingress; calls " +
  "from its whitelisted SBC addresses are admitted, routed to its destinations (SIP endpoints or voice-AI agents), " +
  "recorded, transcribed and given an AI fraud verdict (probability 0-100, category, recommendation) sent to its signed " +
  "webhook and alert channels. Test calls check a route end to end; CLI checks prove what caller ID a route delivers " +
  "(cli_coverage, verify_cli), and anyone can host a number of theirs for checks and earn per check it answers.";

const PricingSchema = z.object({
  currency: z.literal("USD"),
  plans: z.array(PlanSchema).describe("The plan ladder (GET /api/plans): monthly fee, ports, included minutes, per-minute rate"),
  ai_tiers: z.array(AiTierSchema).describe("The AI analysis tiers and their fee per analysed call (GET /api/ai-modes)"),
  new_account: z.object({
    plan: z.string().describe("The plan a new account starts on"),
    welcome_credit: z.number().describe("USD credited on sign-up"),
    pilot_days: z.number().int(),
    pilot_minutes: z.number().int().describe("The pilot lasts pilot_days or pilot_minutes, whichever ends first"),
  }),
});

const SignInSchema = z.object({
  needed_for: z.string().describe("Which tools need a signed-in account"),
  how: z.string(),
  mcp_endpoint: z.string(),
  resource_metadata: z.string().describe("The protected resource metadata (RFC 9728) the 401 challenge names"),
  authorization_server: z.string().describe("The OAuth authorization server metadata (RFC 8414)"),
  sign_up_url: z.string().describe("Where a person without an account makes one (the portal)"),
  sign_in_url: z.string(),
  scopes: z.array(z.string()),
});

const GetStartedSchema = z.object({
  signed_in: z.boolean().describe("false: answered without a credential (general onboarding); sign in for the account's checklist"),
  service: z.string().describe("What the service does"),
  account: z.object({ id: z.uuid(), company: z.string().nullable(), status: z.string() }).nullable(),
  ingress: NetworkInfoSchema.describe("Where the carrier sends its SIP traffic"),
  steps: z.array(StepSchema),
  next_step: StepSchema.nullable().describe("The first step not done yet; null when the account is set up"),
  pricing: PricingSchema.optional().describe("Prices, when answered without a credential (a signed-in account sees its own in the portal)"),
  sign_in: SignInSchema.optional().describe("How to sign in, when answered without a credential"),
});

/** The onboarding steps in order, each with the tool that does it. */
const STEPS = {
  destination: { step: "Add where calls go", tool: "add_destination" },
  options: { step: "Check a destination answers SIP OPTIONS", tool: "check_destination" },
  whitelist: { step: "Whitelist the carrier's SBC addresses", tool: "whitelist_ip" },
  routing: { step: "Route by dialed prefix (optional with a default destination)", tool: "add_routing_rule" },
  webhook: { step: "Receive verdicts on your webhook", tool: "set_webhook" },
  alerts: { step: "Alert people on fraud", tool: "add_alert_rule" },
} as const;

const ingressOf = ({ config }: Services) => ({
  ingress_host: config.INGRESS_HOST,
  ingress_port: config.INGRESS_PORT,
  transports: INGRESS_TRANSPORTS,
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
      ...STEPS.destination,
      done: destinations.length > 0,
      detail: `${destinations.length} destination(s)${hasDefault ? ", one is the default" : destinations.length ? ", none is the default" : ""}`,
    },
    { ...STEPS.options, done: up > 0, detail: `${up} of ${destinations.length} destination(s) answered` },
    {
      ...STEPS.whitelist,
      done: admitting > 0,
      detail: `${entries.length} whitelist entr${entries.length === 1 ? "y" : "ies"}, ${admitting} admitting calls`,
    },
    { ...STEPS.routing, done: rules.length > 0 || hasDefault, detail: `${rules.length} routing rule(s)` },
    {
      ...STEPS.webhook,
      done: Boolean(webhook.url && webhook.secret_set),
      detail: webhook.url
        ? `${webhook.url}${webhook.secret_set ? "" : ` (no signing secret yet: a person sets it at ${portalUrl(services, "/alerts")})`}`
        : "no webhook",
    },
    { ...STEPS.alerts, done: alerts.length > 0, detail: `${alerts.length} alert rule(s)` },
  ];
}

/** The general onboarding, for an agent that has not signed in yet. */
async function onboarding(services: Services) {
  const { config, origin } = services;
  const [plans, aiTiers] = await Promise.all([listPlans(services), listAiTiers(services)]);
  const signUp = portalUrl(services, "/sign-up");
  const signIn = {
    step: "Sign in",
    done: false,
    detail:
      `Call any other tool: the server answers HTTP 401 and the MCP client runs the OAuth sign-in, where a person signs in ` +
      `or creates an account (${signUp}) and approves this agent.`,
    tool: null,
  };
  const steps = [
    signIn,
    ...Object.values(STEPS).map((s) => ({ ...s, done: false, detail: "After sign-in; get_started then shows the account's progress." })),
  ];
  return {
    signed_in: false,
    service: SERVICE,
    account: null,
    ingress: ingressOf(services),
    steps,
    next_step: signIn,
    pricing: {
      currency: "USD" as const,
      plans,
      ai_tiers: aiTiers,
      new_account: {
        plan: DEFAULT_PLAN,
        welcome_credit: config.SIGNUP_CREDIT_USD,
        pilot_days: PILOT_DAYS,
        pilot_minutes: PILOT_MINUTES,
      },
    },
    sign_in: {
      needed_for: "Every tool but get_started (initialize and tools/list need none).",
      how:
        "OAuth 2.1: a tool call without a credential is answered HTTP 401 with WWW-Authenticate naming resource_metadata; " +
        "the MCP client registers, opens the authorization page for a person to sign in (or sign up) and approve the " +
        "scopes, then retries with the access token. Scripts may send an API key as X-API-Key instead.",
      mcp_endpoint: mcpResourceUrl(origin),
      resource_metadata: resourceMetadataUrl(origin),
      authorization_server: `${origin}/.well-known/oauth-authorization-server`,
      sign_up_url: signUp,
      sign_in_url: portalUrl(services, "/sign-in"),
      scopes: [...ALL_MCP_SCOPES],
    },
  };
}

export const getStartedTool = defineTool({
  name: "get_started",
  title: "Get started",
  description:
    "Start here; needs no sign-in. Signed in: the account's onboarding checklist (destinations, OPTIONS check, whitelist, " +
    "routing, webhook, alerts) with what is done, the tool for each step, and where the carrier sends its SIP traffic " +
    "(ingress host, port, transports). Not signed in: what the service does, its prices, the ingress, and how to sign in " +
    "(every other tool needs it).",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object({}),
  output: GetStartedSchema,
  run: async (ctx) => {
    const steps = await checklist(ctx);
    const { customer } = ctx.principal;
    return {
      signed_in: true,
      service: SERVICE,
      account: { id: customer.id, company: customer.company, status: customer.status },
      ingress: ingressOf(ctx.services),
      steps,
      next_step: steps.find((s) => !s.done) ?? null,
    };
  },
  anonymous: (services) => onboarding(services),
  summary: (r) =>
    !r.signed_in
      ? `Not signed in: ${r.service.split(". ")[0]}. Every tool but get_started needs sign-in (OAuth; the client starts it on the 401).`
      : r.next_step
        ? `Next: ${r.next_step.step} (${r.next_step.tool}).`
        : "The account is set up.",
});
