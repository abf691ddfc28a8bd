import { z } from "@hono/zod-openapi";
import { CASE_COMMENT_AUTHORS, CASE_SEVERITIES, CASE_STATUSES } from "../../schema/enums.ts";
import { NARROW_PAGE, pageOf, pageQuery } from "../lib/pagination.ts";
import { CallSchema } from "./calls.ts";

const ts = () => z.string().openapi({ format: "date-time" });

const title = z.string().trim().min(1).max(200).openapi({ example: "Visa impersonation calls to +1 415" });
const description = z.string().max(10_000).nullable().optional();
const severity = z.enum(CASE_SEVERITIES).openapi({ example: "high" });
const status = z.enum(CASE_STATUSES).openapi({ example: "in_review" });

export const CaseSchema = z
  .object({
    id: z.uuid(),
    case_no: z.number().int().openapi({ description: "Per account, from 1, without gaps", example: 42 }),
    customer_id: z.uuid(),
    call_id: z.uuid().nullable(),
    title: z.string(),
    description: z.string().nullable(),
    status,
    severity,
    created_by: z.string().nullable().openapi({ description: "Who opened it", example: "analyst@carrier.example" }),
    assigned_to: z.uuid().nullable().openapi({ description: "A user of the account" }),
    created_at: ts(),
    updated_at: ts(),
    assigned_to_label: z.string().nullable().optional().openapi({ description: "The assignee's name, else e-mail" }),
    comment_count: z.number().int(),
  })
  .openapi("Case");

export const CaseCommentSchema = z
  .object({
    id: z.uuid(),
    author_kind: z.enum(CASE_COMMENT_AUTHORS).openapi({
      description: "user: written by a user of the account; system: a status or assignee change the service recorded",
    }),
    author_label: z.string().nullable(),
    body: z.string(),
    created_at: ts(),
  })
  .openapi("CaseComment");

export const CaseDetailSchema = CaseSchema.extend({
  comments: z.array(CaseCommentSchema).openapi({ description: "Oldest first" }),
  // A union, not CallSchema.nullable(): the latter renders as allOf [Call, {type: [object, null]}], which refuses null.
  call: z.union([CallSchema, z.null()]).openapi({ description: "The call, or null when there is none or it is gone" }),
}).openapi("CaseDetail");

export const CaseListSchema = pageOf(CaseSchema, "CaseList");

export const CaseListQuery = pageQuery(NARROW_PAGE).extend({
  status: status.optional(),
  severity: severity.optional(),
  assigned_to: z.uuid().optional(),
  call_id: z.uuid().optional(),
});

export const CreateCaseSchema = z
  .object({
    title,
    description,
    severity: severity.default("medium"),
    call_id: z.uuid().nullable().optional().openapi({ description: "The call under investigation; one case per call" }),
  })
  .openapi("CreateCase");

export const UpdateCaseSchema = z
  .object({
    title: title.optional(),
    description,
    status: status.optional(),
    severity: severity.optional(),
    assigned_to: z.uuid().nullable().optional().openapi({ description: "An active user of the account; notified by e-mail" }),
    clear_assigned_to: z.boolean().default(false).openapi({ description: "Unassign the case" }),
  })
  .openapi("UpdateCase");

export const CreateCaseCommentSchema = z
  .object({ body: z.string().trim().min(1).max(10_000).openapi({ example: "Same caller ID as case 41." }) })
  .openapi("CreateCaseComment");

export const CasePrefillQuery = z.object({ call_id: z.uuid() });

export const CasePrefillSchema = z
  .object({
    title: z.string(),
    severity,
    description: z.string(),
    existing_case_id: z.uuid().nullable().openapi({ description: "The call's case, when it has one" }),
  })
  .openapi("CasePrefill", { description: "A case's fields drafted from a call and its verdict" });

export const CaseIdParam = z.object({ case_id: z.uuid().openapi({ param: { name: "case_id", in: "path" } }) });

export type CaseListInput = z.infer<typeof CaseListQuery>;
export type CreateCase = z.infer<typeof CreateCaseSchema>;
export type UpdateCase = z.infer<typeof UpdateCaseSchema>;
