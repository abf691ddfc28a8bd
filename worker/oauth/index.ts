// The OAuth 2.1 authorization server's front door: discovery documents at the host root
// (path-aware for the resource) and under /api, and the endpoints under /api/oauth (the
// spec's paths; /oauth answers too). Browser-based MCP clients read the documents and call the
// token, registration and revocation endpoints cross-origin, without cookies.
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../http/app-env.ts";
import { getAuthorize, postAuthorize } from "./authorize.ts";
import { serveAuthorizationServerMetadata, serveProtectedResourceMetadata } from "./metadata.ts";
import { postRegister } from "./register.ts";
import { oauthEndpoint } from "./respond.ts";
import { postRevoke } from "./revoke.ts";
import { postToken } from "./token.ts";

const openToAll = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "OPTIONS"],
  allowHeaders: ["Content-Type", "Authorization", "MCP-Protocol-Version"],
  maxAge: 600,
});

function endpoints(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/authorize", getAuthorize);
  app.post("/authorize", postAuthorize);
  app.use("/token", openToAll);
  app.post("/token", oauthEndpoint(postToken));
  app.use("/register", openToAll);
  app.post("/register", oauthEndpoint(postRegister));
  app.use("/revoke", openToAll);
  app.post("/revoke", oauthEndpoint(postRevoke));
  return app;
}

function discovery(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", openToAll);
  app.get("/oauth-authorization-server", serveAuthorizationServerMetadata);
  app.get("/oauth-protected-resource", serveProtectedResourceMetadata);
  app.get("/oauth-protected-resource/api/mcp", serveProtectedResourceMetadata);
  return app;
}

/** Mounted at the root by newApp(), before the exchange's catch-all routes. */
export function newOAuthApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route("/.well-known", discovery());
  app.route("/api/.well-known", discovery());
  app.route("/api/oauth", endpoints());
  app.route("/oauth", endpoints());
  return app;
}
