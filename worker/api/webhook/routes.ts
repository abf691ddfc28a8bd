import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import {
  CallAnalyzedEventSchema,
  CallRouteAlertEventSchema,
  DeliveriesQuery,
  DeliveryIdParam,
  NumberControlledEventSchema,
  ScheduleOutcomeChangedEventSchema,
  ScreeningBreachEventSchema,
  PutWebhookSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookSchema,
  WebhookTestEventSchema,
  WebhookTestResultSchema,
} from "../../resources/webhook.ts";
import {
  getWebhook,
  getWebhookDelivery,
  listWebhookDeliveries,
  putWebhook,
  redeliverWebhook,
  testWebhook,
} from "../../services/webhooks/account-webhook.ts";

const tags = ["Webhook"];
const EXTENSION = "Our extension of the published API.";

const SIGNING =
  "Every delivery is a POST of the JSON event signed as the Standard Webhooks specification says: headers webhook-id (the event id, " +
  "the same on every retry: de-duplicate by it), webhook-timestamp (Unix seconds of the attempt) and webhook-signature " +
  "(`v1,` then base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` with the secret: a whsec_ secret's base64 part " +
  "decoded, any other secret's UTF-8 bytes). A 2xx answer is delivered; anything else (or no answer in 10 s) is retried after " +
  "30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h and 8 h (10 attempts over about a day). Redirects are not followed.";

const getRoute = createRoute({
  method: "get",
  path: "/customer/webhook",
  tags,
  summary: "The account webhook (the secret is never returned)",
  ...authenticated,
  responses: { 200: jsonBody(WebhookSchema, "Webhook"), ...errors(401) },
});

const putRoute = createRoute({
  method: "put",
  path: "/customer/webhook",
  tags,
  summary: "Set or remove the webhook URL and its signing secret",
  description: `The URL must be https to a public address. A URL without a secret answers 422 webhook_secret_required. ${SIGNING}`,
  ...authenticated,
  request: jsonRequest(PutWebhookSchema),
  responses: { 200: jsonBody(WebhookSchema, "Webhook"), ...errors(401, 422) },
});

const testRoute = createRoute({
  method: "post",
  path: "/customer/webhook/test",
  tags,
  summary: "Send one signed webhook.test event now (always 200; error webhook_not_configured without a URL or secret)",
  ...authenticated,
  responses: { 200: jsonBody(WebhookTestResultSchema, "What the receiver answered"), ...errors(401) },
});

const listDeliveriesRoute = createRoute({
  method: "get",
  path: "/customer/webhook/deliveries",
  tags,
  summary: "Webhook deliveries, newest first",
  description: EXTENSION,
  ...authenticated,
  request: { query: DeliveriesQuery },
  responses: { 200: jsonBody(WebhookDeliveryListSchema, "Deliveries"), ...errors(401, 422) },
});

const getDeliveryRoute = createRoute({
  method: "get",
  path: "/customer/webhook/deliveries/{delivery_id}",
  tags,
  summary: "One delivery with every attempt",
  description: EXTENSION,
  ...authenticated,
  request: { params: DeliveryIdParam },
  responses: { 200: jsonBody(WebhookDeliverySchema, "Delivery"), ...errors(401, 404) },
});

const redeliverRoute = createRoute({
  method: "post",
  path: "/customer/webhook/deliveries/{delivery_id}/redeliver",
  tags,
  summary: "Send the same event (same webhook-id and body, a fresh signature) once more, now",
  description: EXTENSION,
  ...authenticated,
  request: { params: DeliveryIdParam },
  responses: { 200: jsonBody(WebhookDeliverySchema, "The delivery after this attempt"), ...errors(401, 404) },
});

const EVENTS = [
  { kind: "webhook.test", schema: WebhookTestEventSchema, summary: "Sent by POST /customer/webhook/test" },
  { kind: "call.analyzed", schema: CallAnalyzedEventSchema, summary: "A call's verdict is stored (one per analysis)" },
  { kind: "call.route_alert", schema: CallRouteAlertEventSchema, summary: "The analysis found false answer supervision on the call" },
  {
    kind: "automation.number_controlled",
    schema: NumberControlledEventSchema,
    summary: "An automation rule put the caller's number under control (block or divert)",
  },
  {
    kind: "schedule.outcome_changed",
    schema: ScheduleOutcomeChangedEventSchema,
    summary: "A scheduled CLI check or route test ended differently from its previous run",
  },
  {
    kind: "screening.breach",
    schema: ScreeningBreachEventSchema,
    summary: "A velocity screening rule refused or flagged a caller ID, prefix or source for the first time within the hour",
  },
] as const;

export function registerWebhook(api: Api) {
  api.openapi(getRoute, async (c) => c.json(await getWebhook(c.var.services, c.var.principal), 200));
  api.openapi(putRoute, async (c) => c.json(await putWebhook(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(testRoute, async (c) => c.json(await testWebhook(c.var.services, c.var.principal), 200));
  api.openapi(listDeliveriesRoute, async (c) =>
    c.json(await listWebhookDeliveries(c.var.services, c.var.principal, c.req.valid("query")), 200),
  );
  api.openapi(getDeliveryRoute, async (c) =>
    c.json(await getWebhookDelivery(c.var.services, c.var.principal, c.req.valid("param").delivery_id), 200),
  );
  api.openapi(redeliverRoute, async (c) =>
    c.json(await redeliverWebhook(c.var.services, c.var.principal, c.req.valid("param").delivery_id), 200),
  );
  const signatureHeaders = z.object({
    "webhook-id": z.string().openapi({ example: "msg_0192f0c4a1b27c3d8e9f" }),
    "webhook-timestamp": z.string().openapi({ example: "1764150000" }),
    "webhook-signature": z.string().openapi({ example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=" }),
  });
  for (const event of EVENTS) {
    api.openAPIRegistry.registerWebhook({
      method: "post",
      path: event.kind,
      tags,
      summary: event.summary,
      description: SIGNING,
      request: { headers: signatureHeaders, body: { required: true, content: { "application/json": { schema: event.schema } } } },
      responses: { 200: { description: "Any 2xx marks the event delivered; anything else is retried" } },
    });
  }
}
