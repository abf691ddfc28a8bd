// One MCP tool: its name, the scope an agent's token needs for it, explicit annotations, the
// input and output schemas (the resources' own zod schemas where there is one), and what it does
// through the service verbs the HTTP routes call. register() puts it on a per-request McpServer.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "@hono/zod-openapi";
import { describeError } from "../lib/errors.ts";
import type { Services } from "../services/context.ts";
import { DomainError } from "../services/errors.ts";
import { requireScopes } from "../services/oauth/access.ts";
import type { Principal } from "../services/identity/principal.ts";
import { recordToolCall } from "./audit.ts";
import { toolErrorText } from "./tool-errors.ts";
import type { McpScope } from "./scopes.ts";

/** What every tool runs with: the request's services and the principal its credential named. */
export type ToolContext = { services: Services; principal: Principal };

/** The four hints, always stated: a client must not have to guess what a tool does. */
export type ToolHints = { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };

export const READ_ONLY: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

type AnyObject = z.ZodObject<z.ZodRawShape>;

export type Tool<I extends AnyObject = AnyObject, O extends AnyObject = AnyObject> = {
  name: string;
  title: string;
  /** What it does and when to use it, written for the model that picks tools. */
  description: string;
  scope: McpScope;
  hints: ToolHints;
  input: I;
  output: O;
  run(ctx: ToolContext, args: z.output<I>): Promise<z.input<O>>;
  /** One sentence put before the JSON in the text content (clients without structuredContent read it). */
  summary?(result: z.input<O>): string;
  /** What to do when the service answers not found, where "list the records first" is not the answer. */
  notFoundAdvice?: string;
};

export const defineTool = <I extends AnyObject, O extends AnyObject>(tool: Tool<I, O>): Tool => tool as unknown as Tool;

export function registerTool(server: McpServer, tool: Tool, ctx: ToolContext): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: { title: tool.title, ...tool.hints },
    },
    (async (args: unknown) => callTool(tool, ctx, args)) as never,
  );
}

async function callTool(tool: Tool, ctx: ToolContext, args: unknown): Promise<CallToolResult> {
  let result: CallToolResult;
  try {
    // Checked before the request reached the server too (403 insufficient_scope); kept here so no tool runs unscoped.
    requireScopes(ctx.principal, [tool.scope]);
    const structured = (await tool.run(ctx, args as never)) as Record<string, unknown>;
    const json = JSON.stringify(structured, null, 2);
    const text = tool.summary ? `${tool.summary(structured as never)}\n\n${json}` : json;
    result = { content: [{ type: "text", text }], structuredContent: structured };
  } catch (err) {
    result = { content: [{ type: "text", text: errorText(tool, err) }], isError: true };
  }
  await recordToolCall(ctx.services, ctx.principal, tool.name, args, result.isError ? "error" : "ok");
  return result;
}

function errorText(tool: Tool, err: unknown): string {
  if (err instanceof DomainError) return toolErrorText(tool.name, err, tool.notFoundAdvice);
  console.error(`mcp tool ${tool.name} failed`, describeError(err));
  return `${tool.name} failed on our side (an internal error). Check with a read tool whether it took effect before trying again; if it keeps failing, contact support.`;
}
