import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  AlertRuleIdParam,
  AlertRuleSchema,
  AlertTestResultSchema,
  CreateAlertRuleSchema,
  MAX_ALERT_RULES,
  UpdateAlertRuleSchema,
} from "../../resources/alerts.ts";
import { createAlertRule, deleteAlertRule, listAlertRules, testAlertRule, updateAlertRule } from "../../services/alerts/rules.ts";

const tags = ["Alerts"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/alert-rules",
  tags,
  summary: "Alert rules, oldest first",
  ...authenticated,
  responses: { 200: jsonBody(z.array(AlertRuleSchema), "Alert rules"), ...errors(401) },
});

const createRuleRoute = createRoute({
  method: "post",
  path: "/customer/alert-rules",
  tags,
  summary: "Alert people when a verdict crosses min_probability (trigger fraud) or a call's MOS is at or below max_mos (trigger quality)",
  description:
    "Categories and recommendations narrow a fraud rule (null or empty: any). The alert goes by e-mail to recipients (default: the " +
    "account's e-mail) with the files the include_* switches ask for (past the size cap, a link instead), and to each channel in " +
    `channel_ids; at most one alert per rule in throttle_minutes. At most ${MAX_ALERT_RULES} rules per account.`,
  ...authenticated,
  request: jsonRequest(CreateAlertRuleSchema),
  responses: { 201: jsonBody(AlertRuleSchema, "Created"), ...errors(401, 409, 422) },
});

const updateRuleRoute = createRoute({
  method: "patch",
  path: "/customer/alert-rules/{rule_id}",
  tags,
  summary: "Change an alert rule",
  ...authenticated,
  request: { params: AlertRuleIdParam, ...jsonRequest(UpdateAlertRuleSchema) },
  responses: { 200: jsonBody(AlertRuleSchema, "Changed"), ...errors(401, 404, 422) },
});

const deleteRuleRoute = createRoute({
  method: "delete",
  path: "/customer/alert-rules/{rule_id}",
  tags,
  summary: "Delete an alert rule",
  ...authenticated,
  request: { params: AlertRuleIdParam },
  responses: { ...noContent("Deleted"), ...errors(401, 404) },
});

const testRuleRoute = createRoute({
  method: "post",
  path: "/customer/alert-rules/{rule_id}/test",
  tags,
  summary: "Send a test alert: an e-mail to the recipients and a connection test to each channel",
  description:
    "409 no_delivery when nothing can be tried: e-mail off (or on while mail sending is not configured) and no enabled channel. " +
    "Under the local mail view (npm start) the test e-mail is kept in the local outbox and its result says local_mail_view.",
  ...authenticated,
  request: { params: AlertRuleIdParam },
  responses: { 200: jsonBody(AlertTestResultSchema, "What each delivery did"), ...errors(401, 404, 409) },
});

export function registerAlertRules(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listAlertRules(c.var.services, c.var.principal), 200));
  api.openapi(createRuleRoute, async (c) => c.json(await createAlertRule(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(updateRuleRoute, async (c) =>
    c.json(await updateAlertRule(c.var.services, c.var.principal, c.req.valid("param").rule_id, c.req.valid("json")), 200),
  );
  api.openapi(deleteRuleRoute, async (c) => {
    await deleteAlertRule(c.var.services, c.var.principal, c.req.valid("param").rule_id);
    return c.body(null, 204);
  });
  api.openapi(testRuleRoute, async (c) => c.json(await testAlertRule(c.var.services, c.var.principal, c.req.valid("param").rule_id), 200));
}
