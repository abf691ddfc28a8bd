import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { CreateTestCallSchema, TestCallIdParam, TestCallSchema } from "../../resources/test-calls.ts";
import { cancelTestCall, confirmTestCall, createTestCall, getTestCall, listTestCalls } from "../../services/placed-calls/test-calls.ts";

const tags = ["Test calls"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/test-calls",
  tags,
  summary: "Test calls, newest first (verification calls of verified numbers too, purpose verify)",
  ...authenticated,
  responses: { 200: jsonBody(z.array(TestCallSchema), "Test calls"), ...errors(401) },
});

const createTestCallRoute = createRoute({
  method: "post",
  path: "/customer/test-calls",
  tags,
  summary: "Have the platform dial a number through a destination, announce a test call and play a speech sample",
  description:
    "Through `destination_id` or the account's default destination. The caller ID must be one of the account's verified " +
    "numbers (default: the platform's own); the scam sample and voice-agent mode ring only verified numbers " +
    "(422 number_not_verified). Asked with an AI connector token, the test call waits as awaiting_confirm until a " +
    "person confirms it in the portal (confirm_url) within ten minutes; nothing rings before. Charged like a call.",
  ...authenticated,
  request: jsonRequest(CreateTestCallSchema),
  responses: { 202: jsonBody(TestCallSchema, "Queued, or awaiting confirmation"), ...errors(401, 403, 404, 409, 422, 429) },
});

const getRoute = createRoute({
  method: "get",
  path: "/customer/test-calls/{test_call_id}",
  tags,
  summary: "One test call, to poll its progress",
  ...authenticated,
  request: { params: TestCallIdParam },
  responses: { 200: jsonBody(TestCallSchema, "Test call"), ...errors(401, 404) },
});

const cancelRoute = createRoute({
  method: "post",
  path: "/customer/test-calls/{test_call_id}/cancel",
  tags,
  summary: "Withdraw a test call (one awaiting confirmation never rings); an ended one is answered as it is",
  ...authenticated,
  request: { params: TestCallIdParam },
  responses: { 200: jsonBody(TestCallSchema, "Test call"), ...errors(401, 404) },
});

const confirmRoute = createRoute({
  method: "post",
  path: "/customer/test-calls/{test_call_id}/confirm",
  tags,
  summary: "Let an AI agent's test call ring: portal sessions only, within ten minutes of the request",
  description: "409 when the test call is not awaiting confirmation, or its ten minutes have passed (it is then expired).",
  ...authenticated,
  request: { params: TestCallIdParam },
  responses: { 200: jsonBody(TestCallSchema, "Queued"), ...errors(401, 403, 404, 409, 422) },
});

export function registerTestCalls(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listTestCalls(c.var.services, c.var.principal), 200));
  api.openapi(createTestCallRoute, async (c) => c.json(await createTestCall(c.var.services, c.var.principal, c.req.valid("json")), 202));
  api.openapi(getRoute, async (c) => c.json(await getTestCall(c.var.services, c.var.principal, c.req.valid("param").test_call_id), 200));
  api.openapi(cancelRoute, async (c) =>
    c.json(await cancelTestCall(c.var.services, c.var.principal, c.req.valid("param").test_call_id), 200),
  );
  api.openapi(confirmRoute, async (c) =>
    c.json(await confirmTestCall(c.var.services, c.var.principal, c.req.valid("param").test_call_id), 200),
  );
}
