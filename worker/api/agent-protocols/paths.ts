import type { RouteConfig } from "@hono/zod-openapi";
import type { Api } from "../context.ts";

const tags = ["MCP and OAuth"];
const json = (description: string) => ({ description, content: { "application/json": { schema: { type: "object" as const } } } });
const html = (description: string) => ({ description, content: { "text/html": { schema: { type: "string" as const } } } });
const form = { body: { content: { "application/x-www-form-urlencoded": { schema: { type: "object" as const } } } } };
const jsonBody = { body: { content: { "application/json": { schema: { type: "object" as const } } } } };
const redirect = (description: string) => ({ description, headers: { Location: { schema: { type: "string" as const } } } });

const MCP_AUTH =
  "Credentials on the HTTP request: an agent's OAuth access token (Bearer, audience this endpoint), a portal Bearer token or X-API-Key. " +
  'Without one: 401 with `WWW-Authenticate: Bearer resource_metadata="…/.well-known/oauth-protected-resource/api/mcp"`. ' +
  'An agent token lacking a tool\'s scope: 403 `insufficient_scope` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`.';

const discovery = (path: string, summary: string, rfc: string) =>
  ({
    method: "get",
    path,
    tags,
    summary,
    description: `${rfc}. Also served at the host root, where standard clients look first.`,
    responses: { 200: json(summary) },
  }) as const;

/** Registers the documentation of /mcp, /oauth/* and the discovery documents (no handlers). */
export function documentAgentProtocols(api: Api): void {
  const paths: RouteConfig[] = [
    {
      method: "post",
      path: "/mcp",
      tags,
      summary: "MCP server: JSON-RPC 2.0 over stateless Streamable HTTP (initialize, ping, tools/list, tools/call)",
      description: `${MCP_AUTH} A foreign Origin: 403. An unsupported MCP-Protocol-Version: 400.`,
      request: jsonBody,
      responses: {
        200: json("JSON-RPC 2.0 response"),
        400: json("Unsupported protocol version"),
        401: json("No credential"),
        403: json("Foreign origin or insufficient scope"),
      },
    },
    {
      method: "get",
      path: "/mcp",
      tags,
      summary: "What the MCP server is: protocol, version, transport, endpoint, auth, tools, openapi, docs",
      responses: { 200: json("Description") },
    },
    {
      method: "delete",
      path: "/mcp",
      tags,
      summary: "No-op: no MCP session is kept",
      responses: { 204: { description: "Nothing to end" } },
    },
    discovery("/.well-known/oauth-authorization-server", "OAuth 2.1 authorization server metadata", "RFC 8414"),
    discovery("/.well-known/oauth-protected-resource", "Protected resource metadata of the MCP server", "RFC 9728"),
    discovery("/.well-known/oauth-protected-resource/api/mcp", "Protected resource metadata of the MCP server (path-aware)", "RFC 9728"),
    {
      method: "get",
      path: "/oauth/authorize",
      tags,
      summary: "Consent page: names the client, its redirect host and the scopes (sign-in first when needed)",
      description:
        "PKCE S256 is required; without a `resource` indicator (RFC 8707) the request is bound to the MCP server, the only resource. " +
        "An unknown client, a redirect URI it did not register or a response_type other than code is shown on this page, never redirected.",
      responses: {
        200: html("Consent page"),
        302: redirect("Back to the client with an error"),
        400: html("The request cannot be answered by a redirect: the reason on this page"),
        429: html("Too many client metadata documents fetched for this address (Retry-After)"),
      },
    },
    {
      method: "post",
      path: "/oauth/authorize",
      tags,
      summary: "The consent, posted by the browser (CSRF-protected)",
      request: form,
      responses: {
        302: redirect("To the redirect URI with code, state and iss (RFC 9207), or error"),
        200: html("The page again with the reason"),
      },
    },
    {
      method: "post",
      path: "/oauth/register",
      tags,
      summary: "Dynamic client registration (RFC 7591)",
      request: jsonBody,
      responses: { 201: json("Registered client") },
    },
    {
      method: "post",
      path: "/oauth/token",
      tags,
      summary: "A code with its PKCE verifier, or a refresh token, for tokens (refresh tokens rotate; a replayed one revokes its family)",
      request: form,
      responses: { 200: json("access_token, token_type, expires_in, scope, refresh_token"), 400: json("OAuth error") },
    },
    {
      method: "post",
      path: "/oauth/revoke",
      tags,
      summary: "Revokes a token and everything issued with it (RFC 7009)",
      request: form,
      responses: { 200: { description: "Revoked (also for an unknown token)" } },
    },
  ];
  for (const path of paths) api.openAPIRegistry.registerPath(path);
}
