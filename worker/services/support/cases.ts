// Cases: investigation records of an account, optionally about one call (at most one case per
// call), with a comment thread. case_no comes from the account's AccountLedger, so numbers are
// consecutive per account whatever the concurrency. Status and assignee changes are recorded in
// the thread as system comments, and a new assignee is told by e-mail.
import { and, asc, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { caseComments, cases } from "../../../schema/cases.ts";
import { users } from "../../../schema/identity.ts";
import type { BatchItem } from "drizzle-orm/batch";
import { isUniqueViolation, runBatch, type Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { page } from "../../lib/pagination.ts";
import { nowIso } from "../../lib/time.ts";
import type { CaseListInput, CreateCase, UpdateCase } from "../../resources/cases.ts";
import { callOfAccount, newestAnalysis } from "../calls/records.ts";
import { linkedCallOut } from "../calls/calls.ts";
import { threadEntryOut } from "./thread.ts";
import type { Services } from "../context.ts";
import { Conflict, InvalidField } from "../errors.ts";
import { owned, ownedRow } from "../owned.ts";
import { actingLabel, type Principal } from "../identity/principal.ts";

type CaseRow = typeof cases.$inferSelect;
type CommentRow = typeof caseComments.$inferSelect;

const CASE_EXISTS = "case_already_exists_for_call";
const NOT_ASSIGNABLE = "assigned_to must be an active user of this account";

const userLabel = (u: { name: string | null; email: string }) => u.name ?? u.email;

/** The display labels of the account's users among `ids`. */
async function labelsOf(db: Db, customerId: string, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(and(eq(users.customerId, customerId), inArray(users.id, wanted)));
  return new Map(rows.map((u) => [u.id, userLabel(u)]));
}

function caseOut(row: CaseRow, labels: Map<string, string>) {
  return {
    id: row.id,
    case_no: row.caseNo,
    customer_id: row.customerId,
    call_id: row.callId,
    title: row.title,
    description: row.description,
    status: row.status,
    severity: row.severity,
    created_by: row.createdBy,
    assigned_to: row.assignedTo,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    assigned_to_label: row.assignedTo ? (labels.get(row.assignedTo) ?? null) : null,
    comment_count: row.commentCount,
  };
}

const caseOfAccount = (s: Services, principal: Principal, caseId: string) => ownedRow(s.db, cases, principal.customer.id, caseId, "Case");

async function caseOfCall(db: Db, customerId: string, callId: string): Promise<CaseRow | null> {
  const row = await db
    .select()
    .from(cases)
    .where(and(eq(cases.customerId, customerId), eq(cases.callId, callId)))
    .get();
  return row ?? null;
}

/** GET /cases: newest first, every filter given applied. */
export async function listCases({ db }: Services, principal: Principal, query: CaseListInput) {
  const customerId = principal.customer.id;
  const filters: SQL[] = [eq(cases.customerId, customerId)];
  if (query.status) filters.push(eq(cases.status, query.status));
  if (query.severity) filters.push(eq(cases.severity, query.severity));
  if (query.assigned_to) filters.push(eq(cases.assignedTo, query.assigned_to));
  if (query.call_id) filters.push(eq(cases.callId, query.call_id));
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    db.select().from(cases).where(where).orderBy(desc(cases.createdAt), desc(cases.caseNo)).limit(query.limit).offset(query.offset),
    db.select({ n: count() }).from(cases).where(where),
  ]);
  const labels = await labelsOf(
    db,
    customerId,
    rows.map((r) => r.assignedTo),
  );
  return page(
    rows.map((r) => caseOut(r, labels)),
    total?.n ?? 0,
    query,
  );
}

/**
 * POST /cases. Everything that can refuse the case is checked before its number is drawn, so a
 * refused request leaves no gap; only two requests racing for the same call can lose one number.
 */
export async function createCase(s: Services, principal: Principal, input: CreateCase) {
  const customerId = principal.customer.id;
  if (input.call_id) {
    await callOfAccount(s, principal, input.call_id);
    if (await caseOfCall(s.db, customerId, input.call_id)) throw new Conflict(CASE_EXISTS);
  }
  const now = nowIso();
  const row: CaseRow = {
    id: newId(),
    customerId,
    caseNo: await s.ledger(customerId).nextNumber("case"),
    callId: input.call_id ?? null,
    title: input.title,
    description: input.description ?? null,
    status: "open",
    severity: input.severity,
    createdBy: actingLabel(principal),
    assignedTo: null,
    commentCount: 0,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await s.db.insert(cases).values(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(CASE_EXISTS);
    throw err;
  }
  return caseOut(row, new Map());
}

/** GET /cases/{id}: the case, its thread (oldest first) and its call. */
export async function getCase(s: Services, principal: Principal, caseId: string) {
  const row = await caseOfAccount(s, principal, caseId);
  const [comments, labels, call] = await Promise.all([
    s.db
      .select()
      .from(caseComments)
      .where(and(eq(caseComments.customerId, row.customerId), eq(caseComments.caseId, row.id)))
      .orderBy(asc(caseComments.createdAt), asc(caseComments.id)),
    labelsOf(s.db, row.customerId, [row.assignedTo]),
    linkedCallOut(s.db, row.customerId, row.callId),
  ]);
  return { ...caseOut(row, labels), comments: comments.map(threadEntryOut), call };
}

async function activeUserOfAccount(db: Db, customerId: string, userId: string) {
  const row = await db
    .select({ id: users.id, name: users.name, email: users.email, isActive: users.isActive })
    .from(users)
    .where(owned(users, customerId, userId))
    .get();
  if (!row || !row.isActive) throw new InvalidField("assigned_to", NOT_ASSIGNABLE);
  return row;
}

const systemComment = (row: CaseRow, body: string, at: string): CommentRow => ({
  id: newId(),
  customerId: row.customerId,
  caseId: row.id,
  authorKind: "system",
  authorUserId: null,
  authorLabel: null,
  body,
  createdAt: at,
});

/** PATCH /cases/{id}: fields given change; a status or assignee change is written into the thread. */
export async function updateCase(s: Services, principal: Principal, caseId: string, input: UpdateCase) {
  if (input.clear_assigned_to && input.assigned_to) {
    throw new InvalidField("clear_assigned_to", "clear_assigned_to cannot be combined with assigned_to");
  }
  const row = await caseOfAccount(s, principal, caseId);
  const assignee = input.assigned_to ? await activeUserOfAccount(s.db, row.customerId, input.assigned_to) : null;
  const who = actingLabel(principal);
  const now = nowIso();
  const patch: Partial<CaseRow> = {};
  if (input.title !== undefined) patch.title = input.title;
  if (input.description !== undefined) patch.description = input.description;
  if (input.severity !== undefined) patch.severity = input.severity;
  if (input.status !== undefined) patch.status = input.status;
  if (assignee) patch.assignedTo = assignee.id;
  if (input.clear_assigned_to || input.assigned_to === null) patch.assignedTo = null;

  const thread: CommentRow[] = [];
  if (patch.status !== undefined && patch.status !== row.status) {
    thread.push(systemComment(row, `Status changed from ${row.status} to ${patch.status} by ${who}.`, now));
  }
  const newAssignee = patch.assignedTo !== undefined && patch.assignedTo !== row.assignedTo;
  if (newAssignee) {
    thread.push(systemComment(row, assignee ? `Assigned to ${userLabel(assignee)} by ${who}.` : `Unassigned by ${who}.`, now));
  }
  const updated: CaseRow = { ...row, ...patch, commentCount: row.commentCount + thread.length, updatedAt: now };
  const statements: BatchItem<"sqlite">[] = [
    s.db
      .update(cases)
      .set({ ...patch, commentCount: updated.commentCount, updatedAt: now })
      .where(owned(cases, row.customerId, row.id)),
  ];
  if (thread.length) statements.push(s.db.insert(caseComments).values(thread));
  await runBatch(s.db, statements);

  if (newAssignee && assignee && assignee.id !== principal.user.id) await notifyAssignee(s, principal, updated, assignee.email);
  return caseOut(
    updated,
    assignee ? new Map([[assignee.id, userLabel(assignee)]]) : await labelsOf(s.db, row.customerId, [updated.assignedTo]),
  );
}

async function notifyAssignee(s: Services, principal: Principal, row: CaseRow, email: string) {
  await s.mail.send({
    to: [email],
    subject: `Case #${row.caseNo} assigned to you: ${row.title}`,
    text: [
      `${actingLabel(principal)} assigned case #${row.caseNo} to you.`,
      "",
      `Title: ${row.title}`,
      `Status: ${row.status}`,
      `Severity: ${row.severity}`,
      ...(row.callId ? [`Call: ${row.callId}`] : []),
      "",
      `Case id: ${row.id}`,
    ].join("\n"),
  });
}

/** POST /cases/{id}/comments: a user's comment; the case's count and updated_at follow in the same batch. */
export async function addCaseComment(s: Services, principal: Principal, caseId: string, body: string) {
  const row = await caseOfAccount(s, principal, caseId);
  const now = nowIso();
  const comment: CommentRow = {
    id: newId(),
    customerId: row.customerId,
    caseId: row.id,
    authorKind: "user",
    authorUserId: principal.user.id,
    authorLabel: actingLabel(principal),
    body,
    createdAt: now,
  };
  await runBatch(s.db, [
    s.db.insert(caseComments).values(comment),
    s.db
      .update(cases)
      .set({ commentCount: sql`${cases.commentCount} + 1`, updatedAt: now })
      .where(owned(cases, row.customerId, row.id)),
  ]);
  return threadEntryOut(comment);
}

/** The severity a verdict suggests: how likely the call was fraud. */
export function severityOf(probability: number): CaseRow["severity"] {
  if (probability >= 90) return "critical";
  if (probability >= 70) return "high";
  if (probability >= 40) return "medium";
  return "low";
}

/** GET /cases/prefill: a case drafted from the call and its verdict, and the call's case if it has one. */
export async function prefillCase(s: Services, principal: Principal, callId: string) {
  const call = await callOfAccount(s, principal, callId);
  const [verdict, existing] = await Promise.all([newestAnalysis(s.db, call), caseOfCall(s.db, call.customerId, call.id)]);
  const from = call.ani ?? "an unknown number";
  const facts =
    `Call from ${from} to ${call.dialed ?? "an unknown number"} at ${call.startedAt}` +
    (call.durationSec !== null ? ` (${call.durationSec} s).` : ".");
  if (!verdict) {
    return { title: `Call from ${from}`, severity: "medium" as const, description: facts, existing_case_id: existing?.id ?? null };
  }
  const lines = [facts, `Verdict: ${verdict.probability}% ${verdict.category}, recommendation ${verdict.recommendation}.`];
  if (verdict.entity) lines.push(`Caller claimed to be: ${verdict.entity}.`);
  if (verdict.redFlags?.length) lines.push("Red flags:", ...verdict.redFlags.map((flag) => `- ${flag}`));
  if (verdict.summary) lines.push("", verdict.summary);
  return {
    title: verdict.title ?? `${verdict.category.replace(/_/g, " ")} call from ${from}`,
    severity: severityOf(verdict.probability),
    description: lines.join("\n"),
    existing_case_id: existing?.id ?? null,
  };
}
