// Caller-ID (CLI) verification: which countries can take a check, a check through one of the
// account's destinations and its result; and the numbers people host for checks (enrol, confirm
// live with one call, earnings).
import { z } from "@hono/zod-openapi";
import {
  CliCheckSchema,
  CoverageSchema,
  CreateCliCheckSchema,
  CreateHostedNumberSchema,
  HostedNumberSchema,
} from "../../resources/cli-checks.ts";
import { createCliCheck, getCliCheck } from "../../services/cli-checks/checks.ts";
import { coverage } from "../../services/cli-checks/coverage.ts";
import { hostNumber, listHostedNumbers, testHostedNumber } from "../../services/cli-checks/hosted-numbers.ts";
import { decodeCursor, nextCursor } from "../cursor.ts";
import { pageArgs, pageOutput } from "../pages.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

type Check = z.infer<typeof CliCheckSchema>;

function checkSummary(check: Check): string {
  if (check.status === "failed") return `CLI check ${check.id} failed: ${check.error ?? "not placed"} (fee refunded).`;
  if (!check.result) return `CLI check ${check.id} is placing a call to ${check.country}: poll get_cli_check.`;
  const seen = check.received?.from ?? check.received?.asserted ?? "nothing";
  const how = check.result === "modified" ? ` (${check.change}): sent ${check.sent.caller_id}, received ${seen}` : "";
  return `CLI check ${check.id}: ${check.result}${how}${check.status === "placing" ? "; the call is still ending" : ""}.`;
}

export const cliCoverageTool = defineTool({
  name: "cli_coverage",
  title: "CLI check coverage",
  description:
    "The countries where a caller-ID check can be placed now (the platform's numbers and live hosted numbers), the fee " +
    "of one check, and a hosted number's share of it. Call before verify_cli.",
  scope: MCP_SCOPES.testCalls,
  hints: READ_ONLY,
  input: z.object({}),
  output: CoverageSchema,
  run: ({ services }) => coverage(services),
  summary: (c) => `Checks can reach ${c.countries.map((x) => x.country).join(", ") || "no country now"}; US$${c.fee_usd} a check.`,
});

export const verifyCliTool = defineTool({
  name: "verify_cli",
  title: "Verify a route's caller ID",
  description:
    "Place a short call from one of the account's destinations (the route to test), presenting caller_id (one of the " +
    "account's verified numbers; left out: the platform's), to a number the platform holds in `country`. The result is " +
    "what that number saw: match, modified (format, prefix or digits changed; sent and received side by side), withheld, " +
    "missing or not_received, with post-dial delay, answer delay and MOS both ways. Charged the fee of cli_coverage plus " +
    "the call's seconds. It rings only the platform's own numbers, so no confirmation is needed. Poll get_cli_check.",
  scope: MCP_SCOPES.testCalls,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: CreateCliCheckSchema,
  output: CliCheckSchema,
  aliases: { destination: "destination_id" },
  run: ({ services, principal }, args) => createCliCheck(services, principal, args),
  summary: checkSummary,
});

export const getCliCheckTool = defineTool({
  name: "get_cli_check",
  title: "Get a CLI check",
  description: "A CLI check's progress and result: status placing, completed or failed; result and what was received once known.",
  scope: MCP_SCOPES.testCalls,
  hints: READ_ONLY,
  input: z.object({ check_id: z.uuid().describe("The id verify_cli answered") }),
  output: CliCheckSchema,
  aliases: { id: "check_id" },
  run: ({ services, principal }, args) => getCliCheck(services, principal, args.check_id),
  summary: checkSummary,
});

const hostedSummary = (n: z.infer<typeof HostedNumberSchema>) =>
  `${n.number} is ${n.status}` +
  (n.awaiting_test_call_until ? `: call it from any phone before ${n.awaiting_test_call_until} to confirm it` : "") +
  `; point it at ${n.forward_to}. ${n.checks_answered} check(s) answered, US$${n.earnings_usd} earned.`;

export const hostNumberTool = defineTool({
  name: "host_number",
  title: "Host a number for CLI checks",
  description:
    "Enrol a number the account owns in a country so the platform can send CLI checks to it: forward the number's calls " +
    "to forward_to (the answer names it), confirm it with test_hosted_number, and earn a share of each check it answers, " +
    "credited to the balance.",
  scope: MCP_SCOPES.configWrite,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: CreateHostedNumberSchema,
  output: HostedNumberSchema,
  run: ({ services, principal }, args) => hostNumber(services, principal, args),
  summary: hostedSummary,
});

export const testHostedNumberTool = defineTool({
  name: "test_hosted_number",
  title: "Confirm a hosted number",
  description:
    "Listen for a call to a hosted number for ten minutes: the person calls it once from any phone; when the call " +
    "reaches the platform the number is marked live and joins coverage. Check with list_hosted_numbers.",
  scope: MCP_SCOPES.configWrite,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({ hosted_number_id: z.uuid().describe("The id host_number answered") }),
  output: HostedNumberSchema,
  aliases: { id: "hosted_number_id" },
  run: ({ services, principal }, args) => testHostedNumber(services, principal, args.hosted_number_id),
  summary: hostedSummary,
});

export const listHostedNumbersTool = defineTool({
  name: "list_hosted_numbers",
  title: "List hosted numbers",
  description: "The account's hosted numbers: status (pending, live, down), checks answered and earnings.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object(pageArgs),
  output: pageOutput(HostedNumberSchema),
  run: async ({ services, principal }, args) => {
    const offset = await decodeCursor(args.cursor, {});
    const found = await listHostedNumbers(services, principal, { limit: args.limit, offset });
    return { items: found.items, total: found.total, next_cursor: await nextCursor(offset, found.items.length, found.total, {}) };
  },
  summary: (page) => `${page.total} hosted number(s), ${page.items.filter((n) => n.status === "live").length} on this page live.`,
});
