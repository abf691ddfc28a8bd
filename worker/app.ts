// The root application: /api (the customer API, documented by OpenAPI), the one error
// renderer, and the JSON 404. newApp() is used by the Worker entry and by the tests.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { registerApiKeys } from "./api/api-keys/routes.ts";
import { registerAuthConfig } from "./api/auth/config-route.ts";
import { registerAuth } from "./api/auth/routes.ts";
import { registerSessionRoutes } from "./api/auth/session-routes.ts";
import { registerBilling } from "./api/billing/routes.ts";
import { registerCallMedia } from "./api/calls/media-routes.ts";
import { registerCalls } from "./api/calls/routes.ts";
import { registerCallTransfer } from "./api/calls/transfer.ts";
import { registerCatalogue } from "./api/catalogue/routes.ts";
import type { AppEnv } from "./api/context.ts";
import { registerDestinationCheck } from "./api/destinations/check.ts";
import { registerDestinations } from "./api/destinations/routes.ts";
import { registerDocs } from "./api/docs/routes.ts";
import { registerHealth } from "./api/health/routes.ts";
import { registerProfile } from "./api/profile/routes.ts";
import { registerAdmin } from "./api/admin/routes.ts";
import { registerUsers } from "./api/users/routes.ts";
import { registerPasskeys } from "./api/passkeys/routes.ts";
import { registerRouting } from "./api/routing/routes.ts";
import { registerWhitelist } from "./api/whitelist/routes.ts";
import { loadConfig } from "./env.ts";
import { newExchangeApp } from "./exchange/app.ts";
import { newInternalApp } from "./internal/app.ts";
import { database } from "./lib/db.ts";
import { ApiError, describeError } from "./lib/errors.ts";
import { malformedBody, validationError } from "./lib/validation.ts";
import { VERSION } from "./version.ts";

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

  registerHealth(api);
  registerCatalogue(api);
  registerAuthConfig(api);
  registerAuth(api);
  registerSessionRoutes(api);
  registerPasskeys(api);
  registerApiKeys(api);
  registerUsers(api);
  registerProfile(api);
  registerAdmin(api);
  registerBilling(api);
  registerDestinations(api);
  registerDestinationCheck(api);
  registerWhitelist(api);
  registerRouting(api);
  registerCalls(api);
  registerCallMedia(api);
  registerCallTransfer(api);
  registerDocs(api);

  api.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: OPENAPI_INFO,
    servers: [{ url: "/api" }],
  });
  return api;
}

export function newApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("config", loadConfig(c.env));
    c.set("db", database(c.env.DB));
    await next();
  });
  app.route("/api", newApi());
  app.route("/internal", newInternalApp());
  app.route("/", newExchangeApp());
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  app.onError(renderError);
  return app;
}

/** The single place where a failure becomes an HTTP response. */
export function renderError(err: Error, c: Context): Response {
  if (err instanceof ApiError) {
    return c.json({ detail: err.detail }, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    // Hono's own body parsers raise 400 "Malformed JSON in request body".
    if (err.status === 400 && /malformed/i.test(err.message)) return renderError(malformedBody(), c);
    return c.json({ detail: err.message || "Error" }, err.status);
  }
  console.error("unhandled error", describeError(err));
  return c.json({ detail: "Internal Server Error" }, 500);
}
