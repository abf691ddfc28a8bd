import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";
import { AccountSchema } from "../../resources/accounts.ts";
import { ChoosePlanSchema } from "../../resources/billing.ts";
import { subscribePlan } from "../../services/billing/plans.ts";

const planRoute = createRoute({
  method: "post",
  path: "/customer/plan",
  tags: ["Plans and billing"],
  summary: "Change plan now: the first month's fee is charged from the balance",
  description:
    "The new plan's ports, rate and included minutes apply at once and a new cycle starts (cycle_minutes_used 0, plan_renews_at " +
    "a month on). Every cycle the fee is charged again; when the balance does not cover it the account goes back to pay-as-you-go " +
    "and the owner is mailed. Choosing pay-as-you-go ends a paid plan at once, without a refund of the cycle's fee.",
  ...authenticated,
  request: jsonRequest(ChoosePlanSchema),
  responses: { 200: jsonBody(AccountSchema, "Account"), ...errors(401, 402, 404, 409, 422) },
});

export function registerPlan(api: Api) {
  api.openapi(planRoute, async (c) => c.json(await subscribePlan(c.var.services, c.var.principal, c.req.valid("json")), 200));
}
