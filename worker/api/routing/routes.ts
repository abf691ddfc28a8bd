import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import { CreateRoutingRuleSchema, RoutingRuleSchema, RuleIdParam, UpdateRoutingRuleSchema } from "../../resources/routing.ts";
import { createRoutingRule, deleteRoutingRule, listRoutingRules, updateRoutingRule } from "../../services/trunk/routing.ts";

const tags = ["Routing"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/routing-rules",
  tags,
  summary: "Routing rules in the order admission applies them: longest prefix first, then lowest priority",
  ...authenticated,
  responses: { 200: jsonBody(z.array(RoutingRuleSchema), "Routing rules"), ...errors(401) },
});

const createRuleRoute = createRoute({
  method: "post",
  path: "/customer/routing-rules",
  tags,
  summary: "Route dialed numbers with a prefix to a destination",
  ...authenticated,
  request: jsonRequest(CreateRoutingRuleSchema),
  responses: { 201: jsonBody(RoutingRuleSchema, "Created"), ...errors(401, 404, 409, 422) },
});

const updateRuleRoute = createRoute({
  method: "patch",
  path: "/customer/routing-rules/{rule_id}",
  tags,
  summary: "Change a routing rule",
  ...authenticated,
  request: { params: RuleIdParam, ...jsonRequest(UpdateRoutingRuleSchema) },
  responses: { 200: jsonBody(RoutingRuleSchema, "Changed"), ...errors(401, 404, 409, 422) },
});

const deleteRuleRoute = createRoute({
  method: "delete",
  path: "/customer/routing-rules/{rule_id}",
  tags,
  summary: "Delete a routing rule",
  ...authenticated,
  request: { params: RuleIdParam },
  responses: { ...noContent("Deleted"), ...errors(401, 404) },
});

export function registerRouting(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listRoutingRules(c.var.services, c.var.principal), 200));
  api.openapi(createRuleRoute, async (c) => c.json(await createRoutingRule(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(updateRuleRoute, async (c) =>
    c.json(await updateRoutingRule(c.var.services, c.var.principal, c.req.valid("param").rule_id, c.req.valid("json")), 200),
  );
  api.openapi(deleteRuleRoute, async (c) => {
    await deleteRoutingRule(c.var.services, c.var.principal, c.req.valid("param").rule_id);
    return c.body(null, 204);
  });
}
