// Investigation records, optionally about one call, with a comment thread.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, customerId, id, updatedAt } from "./columns.ts";
import { CASE_COMMENT_AUTHORS, CASE_SEVERITIES, CASE_STATUSES } from "./enums.ts";

export const cases = sqliteTable(
  "cases",
  {
    id: id(),
    customerId: customerId(),
    /** Per-account sequence, handed out by the account's AccountLedger (durable-objects/sequences.ts). */
    caseNo: integer("case_no").notNull(),
    callId: text("call_id"),
    title: text("title").notNull(),
    description: text("description"),
    status: text("status", { enum: CASE_STATUSES }).notNull().default("open"),
    severity: text("severity", { enum: CASE_SEVERITIES }).notNull().default("medium"),
    /** Display name of the creator (a user, or the automation that opened it). */
    createdBy: text("created_by"),
    /** A user id of the account. */
    assignedTo: text("assigned_to"),
    /** Kept in step with case_comments (same batch) so lists need no count query. */
    commentCount: integer("comment_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("cases_customer_case_no_uq").on(t.customerId, t.caseNo),
    // At most one case per call (409 case_already_exists_for_call); cases without a call are not limited.
    uniqueIndex("cases_customer_call_uq").on(t.customerId, t.callId),
    index("cases_customer_created_idx").on(t.customerId, t.createdAt),
    index("cases_customer_status_created_idx").on(t.customerId, t.status, t.createdAt),
    index("cases_customer_severity_created_idx").on(t.customerId, t.severity, t.createdAt),
    index("cases_customer_assigned_created_idx").on(t.customerId, t.assignedTo, t.createdAt),
  ],
);

export const caseComments = sqliteTable(
  "case_comments",
  {
    id: id(),
    customerId: customerId(),
    caseId: text("case_id").notNull(),
    authorKind: text("author_kind", { enum: CASE_COMMENT_AUTHORS }).notNull(),
    authorUserId: text("author_user_id"),
    authorLabel: text("author_label"),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("case_comments_customer_case_created_idx").on(t.customerId, t.caseId, t.createdAt)],
);
