// A fresh MCP server per request (stateless Streamable HTTP: nothing outlives the request), its
// tools bound to the request's services and principal (null without a credential: see transport.ts).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { VERSION } from "../version.ts";
import { registerTool, type McpContext } from "./tool.ts";
import { TOOLS } from "./tools/index.ts";

export const SERVER_INFO = { name: "call-shield", title: "Call Shield", version: VERSION };

export const INSTRUCTIONS =
  "Call Shield screens a carrier's SIP calls for fraud. Start with get_started, which needs no sign-in: without one it " +
  "says what the service does, its prices, where calls are sent and how to sign in; signed in, it lists the onboarding " +
  "steps (destinations, OPTIONS check, whitelist, routing, webhook, alerts) and the tool for each. Every other tool needs " +
  "sign-in: called without it, the server answers HTTP 401 and the client's OAuth flow starts. Calls, verdicts and " +
  "transcripts are read with list_calls, get_call and get_transcript; report_links gives short-lived links to a call's " +
  "recording, capture and SIP ladder. A test call an agent places rings only after a person confirms it in the portal " +
  "(its confirm_url). verify_cli proves what caller ID a route delivers (match, modified, withheld, missing, " +
  "not_received) by calling a number the platform holds; host_number enrols a number of the account's for checks. Arguments are strict: an unknown one is refused naming those the tool takes. Lists page with next_cursor.";

export function newMcpServer(ctx: McpContext): McpServer {
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
