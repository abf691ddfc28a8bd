// OAuth 2.1 for AI agents (MCP clients): the scopes a person grants, and the portal's view of
// the agents they authorised. The protocol's own messages (RFC 6749, 7591, 8414, 9728) are
// shaped in worker/oauth/, not here: they are not part of the documented /api resources.
import { z } from "@hono/zod-openapi";

/**
 * What an agent may do, each scope a family of MCP tools (worker/mcp/scopes.ts maps every tool to
 * one). API keys and portal sessions are not scoped (they act with their user's role); a
 * connector's token does only what its scopes name, and within them only what its user's role
 * allows. Reading the configuration comes with changing it: an agent that sets up a carrier must
 * see what it changes, and the configuration holds no secret that is ever returned.
 */
export const OAUTH_SCOPES = {
  /** Calls, their transcripts and verdicts, report and share links, live calls. */
  "calls:read": "Read calls, transcripts, verdicts and report links",
  /** Destinations (and their OPTIONS check), routing rules, whitelist, webhook (and its test), alert rules and channels. */
  "config:write": "Read and change the configuration: destinations, routing rules, whitelist, webhook and alert rules",
  /** Requests, reads and cancels test calls; each one rings only after a person confirms it in the portal. */
  test_calls: "Request test calls (each rings only after you confirm it in the portal)",
} as const;

export type OAuthScope = keyof typeof OAUTH_SCOPES;

export const SUPPORTED_SCOPES = Object.keys(OAUTH_SCOPES) as OAuthScope[];

export const isOAuthScope = (s: string): s is OAuthScope => Object.hasOwn(OAUTH_SCOPES, s);

/** An agent a person authorised (one consent = one grant), as the portal lists it. */
export const AuthorizedAgent = z
  .object({
    grant_id: z.uuid(),
    client_id: z.string().openapi({ description: "The agent's OAuth client id (a URL for a client metadata document)" }),
    client_name: z.string().nullable(),
    redirect_host: z.string().nullable().openapi({ description: "Where the agent received its authorization" }),
    user_id: z.uuid().openapi({ description: "The person who granted it; the agent acts with their role" }),
    user_email: z.string(),
    scopes: z.array(z.enum(SUPPORTED_SCOPES as [OAuthScope, ...OAuthScope[]])),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .openapi("AuthorizedAgent");

export const AuthorizedAgentList = z.object({ items: z.array(AuthorizedAgent), total: z.number().int() }).openapi("AuthorizedAgentList");

export const GrantIdParam = z.object({ grant_id: z.uuid().openapi({ param: { name: "grant_id", in: "path" } }) });
