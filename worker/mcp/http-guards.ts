// What /api/mcp checks before any JSON-RPC is read: the Origin (DNS-rebinding protection), the
// MCP-Protocol-Version header, and the credential, answered the way OAuth clients expect
// (401 with WWW-Authenticate naming the resource metadata; 403 insufficient_scope). A request
// without any credential goes on as anonymous; the transport decides what it may do.
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Config } from "../env.ts";
import type { Services } from "../services/context.ts";
import { mcpResourceUrl, principalFromOAuthToken, resourceMetadataUrl } from "../services/oauth/access.ts";
import { fromAccessToken, fromApiKey, type Principal } from "../services/identity/principal.ts";
import { ALL_MCP_SCOPES } from "./scopes.ts";

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

const refusal = (status: number, detail: string, headers: Record<string, string> = {}) => Response.json({ detail }, { status, headers });

/** The origins configured as ours: the public origin, the portal's, the passkeys' and MCP_ALLOWED_ORIGINS. */
export function configuredOrigins(config: Config): string[] {
  const named = [config.PUBLIC_ORIGIN, config.PORTAL_ORIGIN, config.WEBAUTHN_ORIGIN].filter((o): o is string => !!o && URL.canParse(o));
  return [...named.map((o) => new URL(o).origin), ...config.MCP_ALLOWED_ORIGINS];
}

/**
 * A browser page may reach /api/mcp only from the origins configured as ours (configuredOrigins),
 * never from one derived from the request: a DNS-rebinding page sends its own name in both Origin
 * and Host, so "the request's own origin" is the attacker's. Requests without Origin (scripts,
 * agents) pass. On loopback (`npm start`, nothing configured) a loopback page may connect to a
 * loopback address, such as the portal or a local MCP Inspector: a rebinding page's Host is its own
 * name, never a loopback one.
 */
export function refuseForeignOrigin(request: Request, config: Config): Response | null {
  const origin = request.headers.get("Origin");
  if (origin === null) return null;
  if (configuredOrigins(config).includes(origin)) return null;
  const own = new URL(request.url);
  if (LOOPBACK.test(own.hostname) && URL.canParse(origin) && LOOPBACK.test(new URL(origin).hostname)) return null;
  return refusal(403, "Origin not allowed");
}

/** An MCP-Protocol-Version this server does not speak is 400 (an absent header means the negotiated one). */
export function refuseUnsupportedVersion(request: Request): Response | null {
  const version = request.headers.get("MCP-Protocol-Version");
  if (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  return refusal(400, `Unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`);
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, "")}"`;

function bearerChallenge(origin: string, params: Record<string, string>): string {
  const all = { ...params, resource_metadata: resourceMetadataUrl(origin) };
  return `Bearer ${Object.entries(all)
    .map(([key, value]) => `${key}=${quoted(value)}`)
    .join(", ")}`;
}

/** 401: no credential, or one that does not verify; the challenge tells an OAuth client where to start. */
export function unauthenticated(origin: string, invalid: boolean): Response {
  const params: Record<string, string> = invalid
    ? { error: "invalid_token", error_description: "The access token is invalid or expired" }
    : {};
  params.scope = ALL_MCP_SCOPES.join(" ");
  return refusal(401, "Not authenticated", { "WWW-Authenticate": bearerChallenge(origin, params) });
}

/** 403: the agent's token lacks a scope the call needs; `scopes` names every scope the call needs. */
export function insufficientScope(origin: string, scopes: string[]): Response {
  return refusal(403, "insufficient_scope", {
    "WWW-Authenticate": bearerChallenge(origin, {
      error: "insufficient_scope",
      scope: scopes.join(" "),
      error_description: "The token lacks a scope this call needs",
    }),
  });
}

type Authenticated = { principal: Principal | null } | { refused: Response };

/**
 * The principal behind the request's credential: an X-API-Key or a portal access token (a
 * person's own, for scripts), or an OAuth access token issued to an agent for this resource
 * (one minted for another resource is refused like any bad token). No credential at all is a
 * null principal: the transport lets such a request only initialize, list the tools and call
 * get_started, and answers anything else 401 (unauthenticated) so the client's OAuth flow starts.
 */
export async function authenticate(services: Services, request: Request): Promise<Authenticated> {
  const { db, config, origin } = services;
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.get("Authorization") ?? "")?.[1]?.trim();
  const apiKey = request.headers.get("X-API-Key");
  if (!bearer && !apiKey) return { principal: null };
  const principal = bearer
    ? ((await fromAccessToken(db, bearer, config.JWT_SECRET)) ?? (await principalFromOAuthToken(services, bearer, mcpResourceUrl(origin))))
    : await fromApiKey(db, apiKey!);
  if (!principal) return { refused: unauthenticated(origin, true) };
  if (principal.customer.status === "suspended") return { refused: refusal(403, "Account suspended") };
  if (principal.user.mustChangePassword) return { refused: refusal(403, "password_change_required") };
  return { principal };
}
