// Which OAuth scope each family of tools needs (the scopes themselves: worker/resources/oauth.ts).
// API keys and portal tokens are a person's own credential and are not scoped.
import { SUPPORTED_SCOPES, type OAuthScope } from "../resources/oauth.ts";

export const MCP_SCOPES = {
  callsRead: "calls:read",
  configWrite: "config:write",
  testCalls: "test_calls",
} as const satisfies Record<string, OAuthScope>;

export type McpScope = OAuthScope;

export const ALL_MCP_SCOPES: readonly OAuthScope[] = SUPPORTED_SCOPES;
