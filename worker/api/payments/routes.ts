import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import {
  CheckoutRequestSchema,
  CheckoutSessionSchema,
  ChoosePlanSchema,
  PaymentEventReceiptSchema,
  PaymentsConfigSchema,
} from "../../resources/billing.ts";
import { checkout, handlePaymentEvent, paymentsConfig, subscribe } from "../../services/billing/payments.ts";

const tags = ["Plans and billing"];

const configRoute = createRoute({
  method: "get",
  path: "/customer/payments/config",
  tags,
  summary: "Whether card payments are on, the provider's publishable key, presets and the minimum",
  ...authenticated,
  responses: { 200: jsonBody(PaymentsConfigSchema, "Payments config"), ...errors(401) },
});

const checkoutRoute = createRoute({
  method: "post",
  path: "/customer/payments/checkout",
  tags,
  summary: "A checkout session to add credit by card",
  description:
    "The balance is credited when the provider reports the payment complete (POST /webhooks/payments), once. 409: card payments are off.",
  ...authenticated,
  request: jsonRequest(CheckoutRequestSchema),
  responses: { 200: jsonBody(CheckoutSessionSchema, "Checkout session"), ...errors(401, 409, 422, 502) },
});

const subscribeRoute = createRoute({
  method: "post",
  path: "/customer/payments/subscribe",
  tags,
  summary: "A checkout session paying a plan's first month by card",
  description: "Once paid, the fee is credited to the balance and the plan bought with it (as POST /customer/plan).",
  ...authenticated,
  request: jsonRequest(ChoosePlanSchema),
  responses: { 200: jsonBody(CheckoutSessionSchema, "Checkout session"), ...errors(400, 401, 404, 409, 422, 502) },
});

const webhookRoute = createRoute({
  method: "post",
  path: "/webhooks/payments",
  tags,
  summary: "The payment provider's signed callback (not called by customers)",
  description:
    'Stripe\'s scheme: Stripe-Signature `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">` with the webhook secret, over the raw body, ' +
    "at most 300 s old; anything else answers 400 Invalid signature. Each event id is handled once; a completed checkout credits its " +
    "payment once whatever events arrive, in any order.",
  responses: { 200: jsonBody(PaymentEventReceiptSchema, "Acknowledged"), ...errors(400, 409) },
});

export function registerPayments(api: Api) {
  api.openapi(configRoute, async (c) => c.json(await paymentsConfig(c.var.services), 200));
  api.openapi(checkoutRoute, async (c) => c.json(await checkout(c.var.services, c.var.principal, c.req.valid("json")), 200));
  api.openapi(subscribeRoute, async (c) => c.json(await subscribe(c.var.services, c.var.principal, c.req.valid("json")), 200));
  // The signature is over the raw bytes: the body is read as text, never parsed before it is verified.
  api.openapi(webhookRoute, async (c) =>
    c.json(await handlePaymentEvent(c.var.services, await c.req.text(), c.req.header("Stripe-Signature")), 200),
  );
}
