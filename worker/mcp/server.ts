// A fresh MCP server per request (stateless Streamable HTTP: nothing outlives the request), its
// tools bound to the request's services and principal.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { VERSION } from "../version.ts";
import { registerTool, type ToolContext } from "./tool.ts";
import { TOOLS } from "./tools/index.ts";

export const SERVER_INFO = { name: "call-shield", title: "Call Shield", version: VERSION };

export const INSTRUCTIONS =
  "Call Shield screens a carrier's SIP calls for fraud. Start with get_started: it lists the onboarding steps " +
  "(destinations, OPTIONS check, whitelist, routing, webhook, alerts) and the tool for each. Calls, verdicts and " +
  "transcripts are read with list_calls, get_call and get_transcript. A test call an agent places rings only after a " +
  "person confirms it in the portal (its confirm_url). Lists page with next_cursor.";

export function newMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    // Ajv compiles schemas with new Function, which Workers forbid.
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  for (const tool of TOOLS) registerTool(server, tool, ctx);
  // McpServer announces listChanged; a stateless server never sends notifications, and its tool list is fixed.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
