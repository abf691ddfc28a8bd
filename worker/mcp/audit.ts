// Each tool call an agent makes goes to the account's audit log (mcp.tool_call). Arguments may
// hold secrets (a destination password, a webhook secret): only their names are kept, with the
// ids they named.
import { recordAgentAction } from "../services/accounts/agent-audit.ts";
import type { Services } from "../services/context.ts";
import type { Principal } from "../services/identity/principal.ts";

export async function recordToolCall(
  services: Services,
  principal: Principal,
  tool: string,
  args: unknown,
  outcome: "ok" | "error",
): Promise<void> {
  await recordAgentAction(services, principal, "mcp.tool_call", { tool, outcome, ...argumentsOf(args) });
}

function argumentsOf(args: unknown): { arguments: string[]; ids: Record<string, string> } {
  const entries = args && typeof args === "object" ? Object.entries(args as Record<string, unknown>) : [];
  const ids = entries.filter(([key, value]) => /(^|_)id$/.test(key) && typeof value === "string") as [string, string][];
  return { arguments: entries.map(([key]) => key).sort(), ids: Object.fromEntries(ids) };
}
