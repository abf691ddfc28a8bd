// Destinations: where admitted calls go. list, add, and check with one SIP OPTIONS now.
import { z } from "@hono/zod-openapi";
import { CreateDestinationSchema, DestinationSchema } from "../../resources/destinations.ts";
import { checkDestination } from "../../services/trunk/destination-monitor.ts";
import { createDestination, listDestinations } from "../../services/trunk/destinations.ts";
import { pageArgs, pageOfAll, pageOutput } from "../pages.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { ignoredNote, ignoredSecrets, NO_SECRETS, portalUrl, secretFields } from "./portal-links.ts";

export const listDestinationsTool = defineTool({
  name: "list_destinations",
  title: "List destinations",
  description:
    "The account's destinations (SIP endpoints and voice-AI agents that admitted calls are sent to), newest first, " +
    "with their OPTIONS monitor status. Secrets are never included, only has_* flags.",
  scope: MCP_SCOPES.callsRead,
  hints: READ_ONLY,
  input: z.object(pageArgs),
  output: pageOutput(DestinationSchema),
  run: async ({ services, principal }, args) => pageOfAll(await listDestinations(services, principal), args),
  summary: (page) => `${page.total} destination(s).`,
});

/** A destination's credential and secrets: set by a person on the portal's trunk page, never by an agent. */
const DESTINATION_SECRETS = ["auth_username", "auth_password", "auth_realm", "webhook_secret", "provider_api_key"] as const;
const omitted = Object.fromEntries(DESTINATION_SECRETS.map((name) => [name, true])) as Record<(typeof DESTINATION_SECRETS)[number], true>;
/** What add_destination stores: every field of POST /customer/destinations but the secret ones. */
const AgentDestinationSchema = CreateDestinationSchema.omit(omitted);

export const addDestinationTool = defineTool({
  name: "add_destination",
  title: "Add a destination",
  description:
    "Add where calls go: a SIP endpoint (host, port, transport) or a voice-AI agent (kind voice_ai with its provider). " +
    "is_default makes it the fallback for calls no routing rule or whitelist entry sends elsewhere. Check it afterwards " +
    `with check_destination. ${NO_SECRETS} A destination's digest credential (username, password, realm), webhook secret ` +
    "and provider API key are set there, on the trunk page; needs_credential and needs_webhook say when one is missing.",
  scope: MCP_SCOPES.configWrite,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: AgentDestinationSchema,
  // Taken, so a secret sent anyway reaches run() and is named as ignored instead of vanishing unseen.
  ignoredArguments: DESTINATION_SECRETS,
  output: DestinationSchema.extend(secretFields),
  run: async ({ services, principal }, args) => {
    const destination = await createDestination(services, principal, AgentDestinationSchema.parse(args));
    return {
      ...destination,
      secret_url: portalUrl(services, `/trunk?destination=${destination.id}`),
      ignored_secrets: ignoredSecrets(args, DESTINATION_SECRETS),
    };
  },
  summary: (d) => {
    const missing = [d.needs_credential ? "digest credential" : "", d.needs_webhook ? "webhook secret" : ""].filter(Boolean);
    return (
      `Destination ${d.id} added (${d.host}:${d.port}/${d.transport}).${ignoredNote(d.ignored_secrets)} ` +
      (missing.length
        ? `It still needs its ${missing.join(" and ")}: ask a person to set it at ${d.secret_url}.`
        : `A credential or secret, if it needs one, is set by a person at ${d.secret_url}.`)
    );
  },
});

export const checkDestinationTool = defineTool({
  name: "check_destination",
  title: "Check a destination (SIP OPTIONS)",
  description:
    "Send one SIP OPTIONS to the destination now from a platform SIP node (waits 4 s at most) and answer the " +
    "destination with its refreshed monitor fields: monitor_status up when it answered any SIP code, the code and " +
    "round-trip time, or monitor_last_error.",
  scope: MCP_SCOPES.configWrite,
  // It stores the check's result on the destination and sends a packet to the carrier's host.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z.object({ destination_id: z.uuid().describe("A destination id from list_destinations") }),
  aliases: { destination: "destination_id" },
  output: DestinationSchema,
  run: ({ services, principal }, args) => checkDestination(services, principal, args.destination_id),
  summary: (d) =>
    `Monitor status ${d.monitor_status}` +
    (d.monitor_last_code ? `, answered ${d.monitor_last_code} in ${d.monitor_rtt_ms ?? "?"} ms` : "") +
    (d.monitor_last_error ? ` (${d.monitor_last_error})` : "") +
    ".",
});
