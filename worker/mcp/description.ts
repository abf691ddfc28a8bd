// GET /api/mcp: what a person or a client finds at the endpoint without speaking MCP.
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { mcpResourceUrl, resourceMetadataUrl } from "../services/oauth/access.ts";
import { ALL_MCP_SCOPES } from "./scopes.ts";
import { SERVER_INFO } from "./server.ts";
import { TOOLS } from "./tools/index.ts";
import { ANONYMOUS_METHODS } from "./transport.ts";

export function mcpDescription(origin: string) {
  return {
    protocol: "mcp",
    protocolVersion: LATEST_PROTOCOL_VERSION,
    transport: "streamable-http",
    endpoint: mcpResourceUrl(origin),
    server: SERVER_INFO,
    auth: {
      type: "oauth2",
      resource_metadata: resourceMetadataUrl(origin),
      authorization_server: `${origin}/.well-known/oauth-authorization-server`,
      scopes: ALL_MCP_SCOPES,
      also_accepted: ["X-API-Key: <API key>", "Authorization: Bearer <portal access token>"],
      // What a client may do before signing in; anything else is 401 with the challenge that starts OAuth.
      without_credential: {
        methods: ANONYMOUS_METHODS,
        tools: TOOLS.filter((tool) => tool.anonymous).map((tool) => tool.name),
      },
    },
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      scope: tool.scope,
      needs_sign_in: !tool.anonymous,
      ...(tool.aliases ? { argument_aliases: tool.aliases } : {}),
      annotations: tool.hints,
    })),
    openapi: `${origin}/api/openapi.json`,
    docs: `${origin}/api/docs`,
  };
}
