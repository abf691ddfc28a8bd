import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import {
  CreateScheduleSchema,
  ScheduleIdParam,
  ScheduleListSchema,
  ScheduleSchema,
  UpdateScheduleSchema,
} from "../../resources/cli-checks.ts";
import { pageQuery, NARROW_PAGE } from "../../lib/pagination.ts";
import { createSchedule, deleteSchedule, getSchedule, listSchedules, updateSchedule } from "../../services/cli-checks/schedules.ts";

const tags = ["CLI checks"];

const createScheduleRoute = createRoute({
  method: "post",
  path: "/customer/cli/schedules",
  tags,
  summary: "Repeat a CLI check or a route test (test call) on a destination, hourly or daily",
  description:
    "The first run starts at once; the next ones when due. When a run ends differently from the one before, the " +
    "account's enabled alert channels and its webhook (event schedule.outcome_changed) are told, once. A test_call " +
    "schedule is made by a person or a script, never by an AI agent (its calls would ring unconfirmed).",
  ...authenticated,
  request: jsonRequest(CreateScheduleSchema),
  responses: { 201: jsonBody(ScheduleSchema, "Scheduled; first run placed"), ...errors(401, 402, 403, 404, 422, 429) },
});

const listRoute = createRoute({
  method: "get",
  path: "/customer/cli/schedules",
  tags,
  summary: "Schedules, newest first",
  ...authenticated,
  request: { query: pageQuery(NARROW_PAGE) },
  responses: { 200: jsonBody(ScheduleListSchema, "Schedules"), ...errors(401, 422) },
});

const getRoute = createRoute({
  method: "get",
  path: "/customer/cli/schedules/{schedule_id}",
  tags,
  summary: "One schedule with its latest and previous outcomes",
  ...authenticated,
  request: { params: ScheduleIdParam },
  responses: { 200: jsonBody(ScheduleSchema, "Schedule"), ...errors(401, 404) },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/customer/cli/schedules/{schedule_id}",
  tags,
  summary: "Pause, resume or change how often a schedule runs",
  ...authenticated,
  request: { params: ScheduleIdParam, ...jsonRequest(UpdateScheduleSchema) },
  responses: { 200: jsonBody(ScheduleSchema, "Schedule"), ...errors(401, 404, 422) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/customer/cli/schedules/{schedule_id}",
  tags,
  summary: "Remove a schedule (its past runs stay)",
  ...authenticated,
  request: { params: ScheduleIdParam },
  responses: { ...noContent("Removed"), ...errors(401, 404) },
});

export function registerSchedules(api: Api) {
  api.openapi(createScheduleRoute, async (c) => c.json(await createSchedule(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(listRoute, async (c) => c.json(await listSchedules(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(getRoute, async (c) => c.json(await getSchedule(c.var.services, c.var.principal, c.req.valid("param").schedule_id), 200));
  api.openapi(updateRoute, async (c) =>
    c.json(await updateSchedule(c.var.services, c.var.principal, c.req.valid("param").schedule_id, c.req.valid("json")), 200),
  );
  api.openapi(deleteRoute, async (c) => {
    await deleteSchedule(c.var.services, c.var.principal, c.req.valid("param").schedule_id);
    return c.body(null, 204);
  });
}
