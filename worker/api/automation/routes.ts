import { createRoute, z } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  AniControlListSchema,
  AniControlSchema,
  AutomationRuleIdParam,
  AutomationRuleSchema,
  ControlIdParam,
  ControlsQuery,
  CreateAutomationRuleSchema,
  MAX_AUTOMATION_RULES,
  UpdateAutomationRuleSchema,
} from "../../resources/automation.ts";
import {
  createAutomationRule,
  deleteAutomationRule,
  listAutomationRules,
  listControls,
  releaseControl,
  updateAutomationRule,
} from "../../services/trunk/automation.ts";

const tags = ["Automation"];

const listControlsRoute = createRoute({
  method: "get",
  path: "/automation/controls",
  tags,
  summary: "Controlled numbers, newest first; active ones only unless include_released",
  ...authenticated,
  request: { query: ControlsQuery },
  responses: { 200: jsonBody(AniControlListSchema, "Controlled numbers"), ...errors(401, 422) },
});

const releaseRoute = createRoute({
  method: "post",
  path: "/automation/controls/{control_id}/release",
  tags,
  summary: "Release a controlled number: its calls are treated normally again",
  ...authenticated,
  request: { params: ControlIdParam },
  responses: { 200: jsonBody(AniControlSchema, "Released"), ...errors(401, 404, 409) },
});

const listRulesRoute = createRoute({
  method: "get",
  path: "/automation/rules",
  tags,
  summary: "Automation rules, oldest first",
  ...authenticated,
  responses: { 200: jsonBody(z.array(AutomationRuleSchema), "Automation rules"), ...errors(401) },
});

const createRuleRoute = createRoute({
  method: "post",
  path: "/automation/rules",
  tags,
  summary: "Put the calling number of matching verdicts under control (block, or divert to a destination)",
  description:
    "A verdict at or above min_probability whose recommendation is listed (null or empty: any) controls the caller's number " +
    `for duration_hours (absent: until released). At most ${MAX_AUTOMATION_RULES} rules per account.`,
  ...authenticated,
  request: jsonRequest(CreateAutomationRuleSchema),
  responses: { 201: jsonBody(AutomationRuleSchema, "Created"), ...errors(401, 404, 409, 422) },
});

const updateRuleRoute = createRoute({
  method: "patch",
  path: "/automation/rules/{rule_id}",
  tags,
  summary: "Change an automation rule; clear_duration makes its future controls last until released",
  ...authenticated,
  request: { params: AutomationRuleIdParam, ...jsonRequest(UpdateAutomationRuleSchema) },
  responses: { 200: jsonBody(AutomationRuleSchema, "Changed"), ...errors(401, 404, 422) },
});

const deleteRuleRoute = createRoute({
  method: "delete",
  path: "/automation/rules/{rule_id}",
  tags,
  summary: "Delete an automation rule (the controls it made stay until released or expired)",
  ...authenticated,
  request: { params: AutomationRuleIdParam },
  responses: { ...noContent("Deleted"), ...errors(401, 404) },
});

export function registerAutomation(api: Api) {
  api.openapi(listControlsRoute, async (c) => c.json(await listControls(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(releaseRoute, async (c) =>
    c.json(await releaseControl(c.var.services, c.var.principal, c.req.valid("param").control_id), 200),
  );
  api.openapi(listRulesRoute, async (c) => c.json(await listAutomationRules(c.var.services, c.var.principal), 200));
  api.openapi(createRuleRoute, async (c) => c.json(await createAutomationRule(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(updateRuleRoute, async (c) =>
    c.json(await updateAutomationRule(c.var.services, c.var.principal, c.req.valid("param").rule_id, c.req.valid("json")), 200),
  );
  api.openapi(deleteRuleRoute, async (c) => {
    await deleteAutomationRule(c.var.services, c.var.principal, c.req.valid("param").rule_id);
    return c.body(null, 204);
  });
}
