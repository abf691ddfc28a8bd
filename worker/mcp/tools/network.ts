// Trunk onboarding: the carrier's addresses on the whitelist, and routing rules by dialed prefix.
import { CreateIpEntrySchema, IpEntrySchema } from "../../resources/whitelist.ts";
import { CreateRoutingRuleSchema, RoutingRuleSchema } from "../../resources/routing.ts";
import { createRoutingRule } from "../../services/trunk/routing.ts";
import { createIpEntry } from "../../services/trunk/whitelist.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool } from "../tool.ts";

const CREATES = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const whitelistIpTool = defineTool({
  name: "whitelist_ip",
  title: "Whitelist a carrier address",
  description:
    "Admit calls from an address or range of the carrier's SBC (IPv4 up to /16, IPv6 up to /32). A /24 (IPv6 /48) or " +
    "narrower range admits calls at once; a wider one, or one overlapping another account's entry, waits for proof of " +
    "control (see admits_calls and pending_reason). dial_prefix names a sub-customer; destination_id pins the range's calls " +
    "to one destination.",
  scope: MCP_SCOPES.configWrite,
  hints: CREATES,
  input: CreateIpEntrySchema,
  // The agent plugin's skills name the address `ip` and the destination `destination`.
  aliases: { ip: "cidr", destination: "destination_id" },
  output: IpEntrySchema,
  run: ({ services, principal }, args) => createIpEntry(services, principal, args),
  summary: (e) => `${e.cidr} whitelisted; ${e.admits_calls ? "admits calls now" : `admits no calls yet: ${e.pending_reason}`}.`,
});

export const addRoutingRuleTool = defineTool({
  name: "add_routing_rule",
  title: "Add a routing rule",
  description:
    "Send calls whose dialed number starts with `prefix` to a destination. The longest matching prefix wins, then the " +
    "lowest priority; calls no rule matches go to the default destination.",
  scope: MCP_SCOPES.configWrite,
  hints: CREATES,
  input: CreateRoutingRuleSchema,
  aliases: { destination: "destination_id" },
  output: RoutingRuleSchema,
  run: ({ services, principal }, args) => createRoutingRule(services, principal, args),
  summary: (r) => `Calls to ${r.prefix}… now go to destination ${r.destination_id}.`,
});
