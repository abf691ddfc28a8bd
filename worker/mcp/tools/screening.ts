// Screening before answer (issue 32), read only: the account's rules with their defaults filled in,
// and its do-not-originate list. Changing them is for a person, on the portal's Screening page or
// through the REST operations.
import { z } from "@hono/zod-openapi";
import { DoNotOriginateSchema, ScreeningRulesSchema } from "../../resources/screening.ts";
import { listDoNotOriginate } from "../../services/screening/do-not-originate.ts";
import { getScreeningRules } from "../../services/screening/settings.ts";
import { decodeCursor, nextCursor } from "../cursor.ts";
import { pageArgs, pageOutput } from "../pages.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const getScreeningRulesTool = defineTool({
  name: "get_screening_rules",
  title: "Get the screening rules",
  description:
    "The rules admission applies to every carrier call before it rings (issue 32): number checks (invalid caller ID, " +
    "caller ID equal to the number dialled, neighbour spoofing, the do-not-originate list), attestation checks " +
    "(STIR/SHAKEN failed, a carrier's verstat failed, unverified domestic) and velocity rules (calls per minute, " +
    "concurrent calls, distinct numbers per hour, sequential dialling, short-call share), each with its action " +
    "(off, flag, refuse with 603, divert), scope and thresholds, defaults filled in, and what it means.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object({}),
  output: ScreeningRulesSchema,
  run: ({ services, principal }) => getScreeningRules(services, principal),
  summary: (r) => {
    const acting = Object.entries(r.rules).filter(([, rule]) => rule.action === "refuse" || rule.action === "divert");
    const named = acting.map(([name, rule]) => `${name} (${rule.action})`).join(", ");
    return `${Object.keys(r.rules).length} rule(s)${named ? `; refusing or diverting: ${named}` : "; none refuses or diverts"}${r.updated_at ? `; changed ${r.updated_at}` : "; all at their defaults"}.`;
  },
});

export const listDoNotOriginateTool = defineTool({
  name: "list_do_not_originate",
  title: "List the do-not-originate numbers",
  description:
    "The account's do-not-originate list, newest first: numbers (E.164) that never place calls, such as its own " +
    "inbound-only numbers. A carrier call claiming one as its caller ID is flagged or refused at admission " +
    "(rule do_not_originate, see get_screening_rules). Page on with next_cursor.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object(pageArgs),
  output: pageOutput(DoNotOriginateSchema),
  run: async ({ services, principal }, { limit, cursor }) => {
    const offset = await decodeCursor(cursor, {});
    const page = await listDoNotOriginate(services, principal, { limit, offset });
    return { items: page.items, total: page.total, next_cursor: await nextCursor(offset, page.items.length, page.total, {}) };
  },
  summary: (page) => `${page.items.length} of ${page.total} number(s)${page.next_cursor ? "; more with next_cursor" : ""}.`,
});
