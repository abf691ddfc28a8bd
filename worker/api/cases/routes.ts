import { createRoute } from "@hono/zod-openapi";
import {
  CaseCommentSchema,
  CaseDetailSchema,
  CaseIdParam,
  CaseListQuery,
  CaseListSchema,
  CasePrefillQuery,
  CasePrefillSchema,
  CaseSchema,
  CreateCaseCommentSchema,
  CreateCaseSchema,
  UpdateCaseSchema,
} from "../../resources/cases.ts";
import { addCaseComment, createCase, getCase, listCases, prefillCase, updateCase } from "../../services/support/cases.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody, jsonRequest } from "../responses.ts";

const tags = ["Cases"];

const listRoute = createRoute({
  method: "get",
  path: "/cases",
  tags,
  summary: "The account's cases matching every filter given, newest first",
  ...authenticated,
  request: { query: CaseListQuery },
  responses: { 200: jsonBody(CaseListSchema, "Case list"), ...errors(401, 422) },
});

const createCaseRoute = createRoute({
  method: "post",
  path: "/cases",
  tags,
  summary: "Open a case, optionally about one call (one case per call)",
  ...authenticated,
  request: jsonRequest(CreateCaseSchema),
  responses: { 201: jsonBody(CaseSchema, "Case"), ...errors(401, 404, 409, 422) },
});

const prefillRoute = createRoute({
  method: "get",
  path: "/cases/prefill",
  tags,
  summary: "A case drafted from a call and its verdict, and the call's case when it already has one",
  description:
    "Severity follows the verdict's probability: 90 and above critical, 70 high, 40 medium, below low; medium without a verdict.",
  ...authenticated,
  request: { query: CasePrefillQuery },
  responses: { 200: jsonBody(CasePrefillSchema, "Prefill"), ...errors(401, 404, 422) },
});

const getRoute = createRoute({
  method: "get",
  path: "/cases/{case_id}",
  tags,
  summary: "One case with its comments and its call",
  ...authenticated,
  request: { params: CaseIdParam },
  responses: { 200: jsonBody(CaseDetailSchema, "Case detail"), ...errors(401, 404, 422) },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/cases/{case_id}",
  tags,
  summary: "Change a case's fields, status or assignee",
  description:
    "Any status may follow any other. A status or assignee change is recorded as a system comment; a new assignee is told by e-mail.",
  ...authenticated,
  request: { params: CaseIdParam, ...jsonRequest(UpdateCaseSchema) },
  responses: { 200: jsonBody(CaseSchema, "Case"), ...errors(401, 404, 422) },
});

const commentRoute = createRoute({
  method: "post",
  path: "/cases/{case_id}/comments",
  tags,
  summary: "Add a comment to a case",
  ...authenticated,
  request: { params: CaseIdParam, ...jsonRequest(CreateCaseCommentSchema) },
  responses: { 201: jsonBody(CaseCommentSchema, "Comment"), ...errors(401, 404, 422) },
});

export function registerCases(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listCases(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(createCaseRoute, async (c) => c.json(await createCase(c.var.services, c.var.principal, c.req.valid("json")), 201));
  // Before /cases/{case_id}, which would otherwise take "prefill" for a case id.
  api.openapi(prefillRoute, async (c) => c.json(await prefillCase(c.var.services, c.var.principal, c.req.valid("query").call_id), 200));
  api.openapi(getRoute, async (c) => c.json(await getCase(c.var.services, c.var.principal, c.req.valid("param").case_id), 200));
  api.openapi(updateRoute, async (c) =>
    c.json(await updateCase(c.var.services, c.var.principal, c.req.valid("param").case_id, c.req.valid("json")), 200),
  );
  api.openapi(commentRoute, async (c) =>
    c.json(await addCaseComment(c.var.services, c.var.principal, c.req.valid("param").case_id, c.req.valid("json").body), 201),
  );
}
