import { createRoute } from "@hono/zod-openapi";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest, noContent } from "../responses.ts";
import { CreateHostedNumberSchema, HostedNumberIdParam, HostedNumberListSchema, HostedNumberSchema } from "../../resources/cli-checks.ts";
import { pageQuery, NARROW_PAGE } from "../../lib/pagination.ts";
import {
  deleteHostedNumber,
  getHostedNumber,
  hostNumber,
  listHostedNumbers,
  testHostedNumber,
} from "../../services/cli-checks/hosted-numbers.ts";

const tags = ["Hosted numbers"];

const createRoute_ = createRoute({
  method: "post",
  path: "/customer/hosted-numbers",
  tags,
  summary: "Host a number you own: point it at forward_to, confirm it with a test call, earn a share of each check it answers",
  ...authenticated,
  request: jsonRequest(CreateHostedNumberSchema),
  responses: { 201: jsonBody(HostedNumberSchema, "Enrolled (pending until a call reaches it)"), ...errors(401, 409, 422) },
});

const listRoute = createRoute({
  method: "get",
  path: "/customer/hosted-numbers",
  tags,
  summary: "The account's hosted numbers: status, checks answered and earnings",
  ...authenticated,
  request: { query: pageQuery(NARROW_PAGE) },
  responses: { 200: jsonBody(HostedNumberListSchema, "Hosted numbers"), ...errors(401, 422) },
});

const getRoute = createRoute({
  method: "get",
  path: "/customer/hosted-numbers/{hosted_number_id}",
  tags,
  summary: "One hosted number",
  ...authenticated,
  request: { params: HostedNumberIdParam },
  responses: { 200: jsonBody(HostedNumberSchema, "Hosted number"), ...errors(401, 404) },
});

const testRoute = createRoute({
  method: "post",
  path: "/customer/hosted-numbers/{hosted_number_id}/test",
  tags,
  summary: "Confirm a hosted number: call it from any phone within ten minutes; the platform marks it live when the call arrives",
  ...authenticated,
  request: { params: HostedNumberIdParam },
  responses: { 200: jsonBody(HostedNumberSchema, "Listening for a call (awaiting_test_call_until)"), ...errors(401, 404) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/customer/hosted-numbers/{hosted_number_id}",
  tags,
  summary: "Stop hosting a number (it leaves coverage at once; earnings stay on the balance)",
  ...authenticated,
  request: { params: HostedNumberIdParam },
  responses: { ...noContent("Removed"), ...errors(401, 404) },
});

export function registerHostedNumbers(api: Api) {
  api.openapi(createRoute_, async (c) => c.json(await hostNumber(c.var.services, c.var.principal, c.req.valid("json")), 201));
  api.openapi(listRoute, async (c) => c.json(await listHostedNumbers(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(getRoute, async (c) =>
    c.json(await getHostedNumber(c.var.services, c.var.principal, c.req.valid("param").hosted_number_id), 200),
  );
  api.openapi(testRoute, async (c) =>
    c.json(await testHostedNumber(c.var.services, c.var.principal, c.req.valid("param").hosted_number_id), 200),
  );
  api.openapi(deleteRoute, async (c) => {
    await deleteHostedNumber(c.var.services, c.var.principal, c.req.valid("param").hosted_number_id);
    return c.body(null, 204);
  });
}
