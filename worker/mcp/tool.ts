// One MCP tool: its name, the scope an agent's token needs for it, explicit annotations, the
// input and output schemas (the resources' own zod schemas where there is one), and what it does
// through the service verbs the HTTP routes call. register() puts it on a per-request McpServer.
// Arguments are strict and may carry aliases (./arguments.ts); a tool with `anonymous` also
// answers a request without a credential (get_started), every other one needs sign-in.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "@hono/zod-openapi";
import { describeError } from "../lib/errors.ts";
import type { Services } from "../services/context.ts";
import { DomainError, Unauthenticated } from "../services/errors.ts";
import { requireScopes } from "../services/oauth/access.ts";
import type { Principal } from "../services/identity/principal.ts";
import { listedInput, resolveArguments } from "./arguments.ts";
import { recordToolCall } from "./audit.ts";
import { toolErrorText } from "./tool-errors.ts";
import type { McpScope } from "./scopes.ts";

/** What every tool runs with: the request's services and the principal its credential named. */
export type ToolContext = { services: Services; principal: Principal };

/** A request to /api/mcp: principal null when it came without a credential (only anonymous tools run then). */
export type McpContext = { services: Services; principal: Principal | null };

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
  /**
   * Other names an argument is taken under (alias -> the argument's own name): the names the agent
   * plugin's skills use, such as `destination` for destination_id. Listed by tools/list too.
   */
  aliases?: Record<string, Extract<keyof I["shape"], string>>;
  /** Arguments taken but not listed nor used: secrets an agent may send anyway, which the tool names as ignored. */
  ignoredArguments?: readonly string[];
  /** What it answers without a credential; absent, a request calling it without one is HTTP 401. */
  anonymous?(services: Services, args: z.output<I>): Promise<z.input<O>>;
  /** One sentence put before the JSON in the text content (clients without structuredContent read it). */
  summary?(result: z.input<O>): string;
  /** What to do when the service answers not found, where "list the records first" is not the answer. */
  notFoundAdvice?: string;
};

export const defineTool = <I extends AnyObject, O extends AnyObject>(tool: Tool<I, O>): Tool => tool as unknown as Tool;

const rulesOf = (tool: Tool) => ({ name: tool.name, input: tool.input, aliases: tool.aliases, ignored: tool.ignoredArguments });

export function registerTool(server: McpServer, tool: Tool, ctx: McpContext): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: listedInput(rulesOf(tool)),
      outputSchema: tool.output,
      annotations: { title: tool.title, ...tool.hints },
    },
    (async (args: unknown) => callTool(tool, ctx, args)) as never,
  );
}

async function runTool(tool: Tool, ctx: McpContext, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { services, principal } = ctx;
  if (principal) {
    // Checked before the request reached the server too (403 insufficient_scope); kept here so no tool runs unscoped.
    requireScopes(principal, [tool.scope]);
    return (await tool.run({ services, principal }, args as never)) as Record<string, unknown>;
  }
  // The transport answers 401 before a request without a credential reaches any other tool.
  if (!tool.anonymous) throw new Unauthenticated(`${tool.name} needs sign-in`);
  return (await tool.anonymous(services, args as never)) as Record<string, unknown>;
}

async function callTool(tool: Tool, ctx: McpContext, parsed: unknown): Promise<CallToolResult> {
  let result: CallToolResult;
  let args = parsed;
  try {
    args = resolveArguments(rulesOf(tool), parsed);
    const structured = await runTool(tool, ctx, args as Record<string, unknown>);
    const json = JSON.stringify(structured, null, 2);
    const text = tool.summary ? `${tool.summary(structured as never)}\n\n${json}` : json;
    result = { content: [{ type: "text", text }], structuredContent: structured };
  } catch (err) {
    result = { content: [{ type: "text", text: errorText(tool, err) }], isError: true };
  }
  // Without a credential there is no account to record it in.
  if (ctx.principal) await recordToolCall(ctx.services, ctx.principal, tool.name, args, result.isError ? "error" : "ok");
  return result;
}

function errorText(tool: Tool, err: unknown): string {
  if (err instanceof DomainError) return toolErrorText(tool.name, err, tool.notFoundAdvice);
  console.error(`mcp tool ${tool.name} failed`, describeError(err));
  return `${tool.name} failed on our side (an internal error). Check with a read tool whether it took effect before trying again; if it keeps failing, contact support.`;
}
