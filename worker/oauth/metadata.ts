// The two discovery documents: the authorization server's (RFC 8414) and the MCP endpoint's as a
// protected resource (RFC 9728). Served where the spec lists them (under /api) and where
// standard clients look (the host root; the resource's path-aware form
// /.well-known/oauth-protected-resource/api/mcp). The issuer is the origin itself.
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { SUPPORTED_SCOPES } from "../resources/oauth.ts";
import { AUTH_METHODS, GRANT_TYPES } from "../services/oauth/clients.ts";
import { mcpResourceUrl } from "../services/oauth/access.ts";

/** Where the OAuth endpoints are: under /api as the spec lists them (also answered at /oauth). */
export const endpointsOf = (origin: string) => ({
  authorization_endpoint: `${origin}/api/oauth/authorize`,
  token_endpoint: `${origin}/api/oauth/token`,
  registration_endpoint: `${origin}/api/oauth/register`,
  revocation_endpoint: `${origin}/api/oauth/revoke`,
});

export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    ...endpointsOf(origin),
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${origin}/api/docs`,
  };
}

export function protectedResourceMetadata(origin: string) {
  return {
    resource: mcpResourceUrl(origin),
    authorization_servers: [origin],
    scopes_supported: SUPPORTED_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "Call Shield MCP server",
    resource_documentation: `${origin}/api/docs`,
  };
}

const originOf = (c: Context<AppEnv>) => c.var.services.origin;

export const serveAuthorizationServerMetadata = (c: Context<AppEnv>) => c.json(authorizationServerMetadata(originOf(c)));
export const serveProtectedResourceMetadata = (c: Context<AppEnv>) => c.json(protectedResourceMetadata(originOf(c)));
