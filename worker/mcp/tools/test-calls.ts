// Test calls: the platform dials a number through a destination and plays a sample. One an agent
// asks for waits in awaiting_confirm until a person confirms it in the portal (confirm_url):
// nothing rings before. Verified numbers are the caller IDs and targets the stricter modes need.
import { z } from "@hono/zod-openapi";
import { CreateTestCallSchema, TestCallSchema, VerifiedNumberSchema } from "../../resources/test-calls.ts";
import { cancelTestCall, createTestCall, getTestCall } from "../../services/placed-calls/test-calls.ts";
import { listVerifiedNumbers } from "../../services/placed-calls/verified-numbers.ts";
import { pageArgs, pageOfAll, pageOutput } from "../pages.ts";
import { MCP_SCOPES } from "../scopes.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

const testCallId = z.uuid().describe("The id place_test_call answered");

type TestCall = z.infer<typeof TestCallSchema>;

function progress(call: TestCall): string {
  if (call.status === "awaiting_confirm") {
    return `Test call ${call.id} awaits a person's confirmation: nothing rings until they confirm it at ${call.confirm_url} (by ${call.confirm_expires_at}).`;
  }
  const outcome = call.sip_code ? ` (SIP ${call.sip_code}${call.sip_reason ? ` ${call.sip_reason}` : ""})` : "";
  return `Test call ${call.id} is ${call.status}${outcome}${call.error ? `: ${call.error}` : ""}.`;
}

export const placeTestCallTool = defineTool({
  name: "place_test_call",
  title: "Place a test call",
  description:
    "Ask the platform to call `number` through a destination (the default one unless destination_id) and play a " +
    "sample: route_test checks the route, scam_sample (verified numbers only) exercises the fraud verdict. Requested " +
    "by an agent, the call is created awaiting_confirm with a confirm_url: it rings only after a person confirms it in " +
    "the portal within ten minutes. Follow it with get_test_call.",
  scope: MCP_SCOPES.testCalls,
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: CreateTestCallSchema,
  // The agent plugin's skills name it `destination`; dropped, the call went to the default destination.
  aliases: { destination: "destination_id" },
  output: TestCallSchema,
  run: ({ services, principal }, args) => createTestCall(services, principal, args),
  summary: progress,
});

export const getTestCallTool = defineTool({
  name: "get_test_call",
  title: "Get a test call",
  description:
    "A test call's progress: awaiting_confirm, queued, dialing, ringing, answered, done, failed (sip_code, sip_reason), " +
    "cancelled or expired; call_id names the call record it produced (get_call).",
  scope: MCP_SCOPES.testCalls,
  hints: READ_ONLY,
  input: z.object({ test_call_id: testCallId }),
  aliases: { id: "test_call_id" },
  output: TestCallSchema,
  run: ({ services, principal }, args) => getTestCall(services, principal, args.test_call_id),
  summary: progress,
});

export const cancelTestCallTool = defineTool({
  name: "cancel_test_call",
  title: "Cancel a test call",
  description: "Withdraw a test call: one not placed yet never rings, one ringing or up is hung up. An ended one is answered as it is.",
  scope: MCP_SCOPES.testCalls,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z.object({ test_call_id: testCallId }),
  aliases: { id: "test_call_id" },
  output: TestCallSchema,
  run: ({ services, principal }, args) => cancelTestCall(services, principal, args.test_call_id),
  summary: progress,
});

export const listVerifiedNumbersTool = defineTool({
  name: "list_verified_numbers",
  title: "List verified numbers",
  description:
    "Numbers the account proved it controls: usable as a test call's caller_id, and the only numbers scam_sample and " +
    "voice-agent test calls ring. Numbers are added and verified by a person in the portal.",
  scope: MCP_SCOPES.testCalls,
  hints: READ_ONLY,
  input: z.object(pageArgs),
  output: pageOutput(VerifiedNumberSchema),
  run: async ({ services, principal }, args) => pageOfAll(await listVerifiedNumbers(services, principal), args),
  summary: (page) => `${page.total} number(s), ${page.items.filter((n) => n.verified).length} on this page verified.`,
});
