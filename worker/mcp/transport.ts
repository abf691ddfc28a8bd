// POST /api/mcp: one JSON-RPC message (or batch) through the SDK's web-standard Streamable HTTP
// transport in stateless mode, answered as JSON. A tools/call whose tool needs a scope the
// agent's token lacks is answered 403 before the server sees it, so the client can step up.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { InsufficientScope } from "../services/errors.ts";
import { requireScopes } from "../services/oauth/access.ts";
import { insufficientScope } from "./http-guards.ts";
import { newMcpServer } from "./server.ts";
import type { ToolContext } from "./tool.ts";
import { toolNamed } from "./tools/index.ts";

type Message = { method?: unknown; params?: { name?: unknown } };

const parseError = () =>
  Response.json({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null }, { status: 400 });

/** The scopes the request's tools/call messages need. */
function scopesNeeded(body: unknown): string[] {
  const messages = (Array.isArray(body) ? body : [body]) as Message[];
  return messages.flatMap((m) => {
    if (m?.method !== "tools/call" || typeof m.params?.name !== "string") return [];
    const tool = toolNamed(m.params.name);
    return tool ? [tool.scope] : [];
  });
}

export async function answerMcpPost(ctx: ToolContext, request: Request): Promise<Response> {
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return parseError();
  }
  try {
    // The challenge names the scopes the token holds as well as those the call adds: a client
    // that steps up asks for exactly these, and must not lose what it could already do.
    const held = ctx.principal.connector?.scopes ?? [];
    requireScopes(ctx.principal, [...new Set([...held, ...scopesNeeded(body)])]);
  } catch (err) {
    if (err instanceof InsufficientScope) return insufficientScope(ctx.services.origin, err.scopes);
    throw err;
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
