// POST /api/mcp: one JSON-RPC message (or batch) through the SDK's web-standard Streamable HTTP
// transport in stateless mode, answered as JSON. A tools/call whose tool needs a scope the
// agent's token lacks is answered 403 before the server sees it, so the client can step up.
// Without a credential, a request may only initialize, ping, list the tools and call a tool that
// answers anonymously (get_started); anything else is 401 with the challenge that starts the
// client's OAuth flow, so an agent can connect, read what the service is and then sign in.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { InsufficientScope } from "../services/errors.ts";
import { requireScopes } from "../services/oauth/access.ts";
import { insufficientScope, unauthenticated } from "./http-guards.ts";
import { newMcpServer } from "./server.ts";
import type { McpContext } from "./tool.ts";
import { toolNamed } from "./tools/index.ts";

type Message = { method?: unknown; params?: { name?: unknown } };

/** The methods a client without a credential may send (and tools/call of an anonymous tool). */
export const ANONYMOUS_METHODS = ["initialize", "notifications/initialized", "ping", "tools/list"];

const parseError = () =>
  Response.json({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null }, { status: 400 });

const messagesOf = (body: unknown) => (Array.isArray(body) ? body : [body]) as Message[];

/** The scopes the request's tools/call messages need. */
function scopesNeeded(body: unknown): string[] {
  return messagesOf(body).flatMap((m) => {
    if (m?.method !== "tools/call" || typeof m.params?.name !== "string") return [];
    const tool = toolNamed(m.params.name);
    return tool ? [tool.scope] : [];
  });
}

/** Whether every message of the request is one a client may send before signing in (a batch is all or nothing). */
function answersAnonymously(body: unknown): boolean {
  const messages = messagesOf(body);
  return (
    messages.length > 0 &&
    messages.every((m) => {
      if (!m || typeof m !== "object") return false;
      if (typeof m.method === "string" && ANONYMOUS_METHODS.includes(m.method)) return true;
      return m.method === "tools/call" && typeof m.params?.name === "string" && Boolean(toolNamed(m.params.name)?.anonymous);
    })
  );
}

export async function answerMcpPost(ctx: McpContext, request: Request): Promise<Response> {
  const { principal, services } = ctx;
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    // A request without a credential learns nothing but where to sign in.
    return principal ? parseError() : unauthenticated(services.origin, false);
  }
  if (!principal) {
    if (!answersAnonymously(body)) return unauthenticated(services.origin, false);
  } else {
    try {
      // The challenge names the scopes the token holds as well as those the call adds: a client
      // that steps up asks for exactly these, and must not lose what it could already do.
      const held = principal.connector?.scopes ?? [];
      requireScopes(principal, [...new Set([...held, ...scopesNeeded(body)])]);
    } catch (err) {
      if (err instanceof InsufficientScope) return insufficientScope(services.origin, err.scopes);
      throw err;
    }
  }

  const server = newMcpServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}
