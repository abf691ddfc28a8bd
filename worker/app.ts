// The root application: /api (the customer API, documented by OpenAPI), the one error
// renderer, and the JSON 404; /dev is the local mail view (worker/pages/). newApp() is used by
// the Worker entry and by the tests.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import * as admin from "./api/admin/index.ts";
import * as agentProtocols from "./api/agent-protocols/index.ts";
import * as agents from "./api/agents/index.ts";
import * as alerts from "./api/alerts/index.ts";
import * as apiKeys from "./api/api-keys/index.ts";
import * as automation from "./api/automation/index.ts";
import * as auth from "./api/auth/index.ts";
import * as billing from "./api/billing/index.ts";
import * as callSigning from "./api/call-signing/index.ts";
import * as calls from "./api/calls/index.ts";
import * as cases from "./api/cases/index.ts";
import * as catalogue from "./api/catalogue/index.ts";
import type { Api } from "./api/context.ts";
import type { AppEnv } from "./http/app-env.ts";
import * as dashboard from "./api/dashboard/index.ts";
import * as destinations from "./api/destinations/index.ts";
import * as dialer from "./api/dialer/index.ts";
import * as docs from "./api/docs/index.ts";
import * as events from "./api/events/index.ts";
import * as invoices from "./api/invoices/index.ts";
import * as health from "./api/health/index.ts";
import * as leads from "./api/leads/index.ts";
import * as passkeys from "./api/passkeys/index.ts";
import * as payments from "./api/payments/index.ts";
import * as profile from "./api/profile/index.ts";
import { renderError } from "./api/render-error.ts";
import { documentCommonResponses } from "./api/responses.ts";
import * as routing from "./api/routing/index.ts";
import * as screening from "./api/screening/index.ts";
import * as settings from "./api/settings/index.ts";
import * as shares from "./api/shares/index.ts";
import * as support from "./api/support/index.ts";
import * as testCalls from "./api/test-calls/index.ts";
import * as cliChecks from "./api/cli-checks/index.ts";
import * as users from "./api/users/index.ts";
import * as voiceWebhooks from "./api/voice-webhooks/index.ts";
import * as webhook from "./api/webhook/index.ts";
import * as whitelist from "./api/whitelist/index.ts";
import { loadConfig } from "./env.ts";
import { newMcpApp } from "./mcp/routes.ts";
import { newExchangeApp } from "./exchange/app.ts";
import { newInternalApp } from "./internal/app.ts";
import { newOAuthApp } from "./oauth/index.ts";
import { requestBodyLimit } from "./lib/body-limit.ts";
import { validationError } from "./lib/validation.ts";
import { newCheckoutPages } from "./pages/checkout.ts";
import { newPortalPages } from "./pages/portal.ts";
import { newDialerPages } from "./pages/dialer.ts";
import { newMailPages } from "./pages/mail.ts";
import { newSharePages } from "./pages/share.ts";
import { newServices } from "./composition.ts";
import { VERSION } from "./version.ts";

/** The areas of the customer API, in the order their routes are matched and documented. */
const AREAS: { register(api: Api): void }[] = [
  health,
  catalogue,
  auth,
  passkeys,
  apiKeys,
  agents,
  users,
  profile,
  settings,
  dialer,
  admin,
  billing,
  payments,
  invoices,
  dashboard,
  destinations,
  whitelist,
  routing,
  calls,
  shares,
  cases,
  support,
  leads,
  automation,
  alerts,
  webhook,
  testCalls,
  cliChecks,
  screening,
  callSigning,
  agentProtocols,
  events,
  voiceWebhooks,
  docs,
];

export const OPENAPI_INFO = {
  title: "Call Screening Service API",
  version: VERSION,
  description: "Customer API of the SIP call-screening service: accounts, trunks, calls and AI verdicts.",
};

function newApi(): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "BearerAuth", { type: "http", scheme: "bearer" });
  api.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyAuth", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "RecordingToken", {
    type: "apiKey",
    in: "query",
    name: "t",
    description: "A recording token from GET /calls/{call_id}/recording-token; good for that call's recording only",
  });

  for (const area of AREAS) area.register(api);
  documentCommonResponses(api);

  api.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: OPENAPI_INFO,
    servers: [{ url: "/api" }],
  });
  return api;
}

export function newApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestBodyLimit);
  app.use("*", async (c, next) => {
    const config = loadConfig(c.env);
    const services = newServices(c.env, config, { origin: new URL(c.req.url).origin, background: backgroundOf(c) });
    c.set("config", config);
    c.set("services", services);
    c.set("db", services.db);
    await next();
  });
  // The MCP server (its own front door: JSON-RPC, not REST; described in the document by api/agent-protocols).
  app.route("/api/mcp", newMcpApp());
  app.route("/api", newApi());
  // OAuth 2.1 for agents: discovery at the root and under /api, endpoints under /api/oauth and /oauth.
  app.route("/", newOAuthApp());
  app.route("/internal", newInternalApp());
  // The local checkout and the local mail view (`npm start` only; 404 anywhere else).
  app.route("/dev/checkout", newCheckoutPages());
  app.route("/dev", newMailPages());
  // The page a share link opens (its script and style are static assets under /share-assets/).
  app.route("/share", newSharePages());
  // The web dialer (its script, style and JsSIP are static assets under /dialer-assets/).
  app.route("/dialer", newDialerPages());
  // The portal (a single-page app: its shell here, its scripts and styles static assets under /app/assets/).
  app.route("/app", newPortalPages());
  app.route("/", newExchangeApp());
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  app.onError(renderError);
  return app;
}

/** ExecutionContext.waitUntil where there is one (not under app.request in a test). */
function backgroundOf(c: Context<AppEnv>): ((work: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined;
  }
}
