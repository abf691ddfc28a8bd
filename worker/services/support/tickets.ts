// Support tickets between an account and the service team: questions, bugs, feature requests,
// billing, and disputes of a call's verdict (a ticket with call_id). ticket_no comes from the
// account's AccountLedger. The customer opens and closes; only a reply of the service team (a
// platform administrator, through /admin/support/...) marks a ticket answered. Customer messages
// go to the service team by mail; replies go to the user who opened the ticket.
import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { TicketStatus } from "../../../schema/enums.ts";
import { customers, users } from "../../../schema/identity.ts";
import { supportTickets, ticketMessages } from "../../../schema/tickets.ts";
import { runBatch, type Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { nowIso } from "../../lib/time.ts";
import type { CreateTicket, TicketListInput } from "../../resources/support-tickets.ts";
import { requirePlatformAdmin } from "../accounts/admin.ts";
import { callOfAccount } from "../calls/records.ts";
import { linkedCallOut } from "../calls/calls.ts";
import { threadEntryOut } from "./thread.ts";
import type { Services } from "../context.ts";
import { InvalidField, NotFound } from "../errors.ts";
import { owned, ownedRow } from "../owned.ts";
import { actingLabel, type Principal } from "../identity/principal.ts";

type TicketRow = typeof supportTickets.$inferSelect;
type MessageRow = typeof ticketMessages.$inferSelect;

/** How the service team signs its replies to customers. */
export const SUPPORT_LABEL = "Support team";

export function ticketOut(row: TicketRow) {
  return {
    id: row.id,
    ticket_no: row.ticketNo,
    customer_id: row.customerId,
    kind: row.kind,
    subject: row.subject,
    body: row.body,
    call_id: row.callId,
    status: row.status,
    created_by: row.createdBy,
    closed_at: row.closedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    message_count: row.messageCount,
  };
}

const ticketOfAccount = (s: Services, principal: Principal, ticketId: string) =>
  ownedRow(s.db, supportTickets, principal.customer.id, ticketId, "Ticket");

const NEWEST_FIRST = [desc(supportTickets.createdAt), desc(supportTickets.ticketNo)];

async function ticketPage(db: Db, filters: SQL[], params: PageParams) {
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(supportTickets)
      .where(where)
      .orderBy(...NEWEST_FIRST)
      .limit(params.limit)
      .offset(params.offset),
    db.select({ n: count() }).from(supportTickets).where(where),
  ]);
  return page(rows.map(ticketOut), total?.n ?? 0, params);
}

/** GET /support/tickets: newest first. */
export async function listTickets({ db }: Services, principal: Principal, query: TicketListInput) {
  const filters: SQL[] = [eq(supportTickets.customerId, principal.customer.id)];
  if (query.status) filters.push(eq(supportTickets.status, query.status));
  if (query.kind) filters.push(eq(supportTickets.kind, query.kind));
  return ticketPage(db, filters, query);
}

/** POST /support/tickets: a ticket with a call disputes that call's verdict (kind analysis unless told otherwise). */
export async function createTicket(s: Services, principal: Principal, input: CreateTicket) {
  const customerId = principal.customer.id;
  if (input.call_id) await callOfAccount(s, principal, input.call_id);
  const now = nowIso();
  const row: TicketRow = {
    id: newId(),
    customerId,
    ticketNo: await s.ledger(customerId).nextNumber("ticket"),
    kind: input.kind ?? (input.call_id ? "analysis" : "question"),
    subject: input.subject,
    body: input.body,
    callId: input.call_id ?? null,
    status: "open",
    createdBy: actingLabel(principal),
    createdByUserId: principal.user.id,
    closedAt: null,
    messageCount: 0,
    createdAt: now,
    updatedAt: now,
  };
  await s.db.insert(supportTickets).values(row);
  await mailServiceTeam(s, principal, row, `New ${row.kind} ticket`, row.body);
  return ticketOut(row);
}

/** GET /support/tickets/{id}: the ticket, its messages oldest first, and the disputed call. */
export async function getTicket(s: Services, principal: Principal, ticketId: string) {
  const row = await ticketOfAccount(s, principal, ticketId);
  const [messages, call] = await Promise.all([
    s.db
      .select()
      .from(ticketMessages)
      .where(and(eq(ticketMessages.customerId, row.customerId), eq(ticketMessages.ticketId, row.id)))
      .orderBy(asc(ticketMessages.createdAt), asc(ticketMessages.id)),
    linkedCallOut(s.db, row.customerId, row.callId),
  ]);
  return { ...ticketOut(row), messages: messages.map(threadEntryOut), call };
}

/** The columns a move to `status` sets: closing stamps closed_at (once), anything else clears it. */
function statusPatch(row: TicketRow, status: TicketStatus, at: string): Partial<TicketRow> {
  if (status === "closed") return { status, closedAt: row.status === "closed" ? row.closedAt : at };
  return { status, closedAt: null };
}

/** PATCH /support/tickets/{id}: open or closed; answered is the service team's to set. */
export async function updateTicket(s: Services, principal: Principal, ticketId: string, status: TicketStatus) {
  const row = await ticketOfAccount(s, principal, ticketId);
  if (status === "answered") throw new InvalidField("status", "only a reply from support marks a ticket answered");
  const now = nowIso();
  const patch = { ...statusPatch(row, status, now), updatedAt: now };
  await s.db
    .update(supportTickets)
    .set(patch)
    .where(owned(supportTickets, row.customerId, row.id));
  return ticketOut({ ...row, ...patch });
}

/** Adds a message and moves the ticket, in one batch; the count follows in the same statement. */
async function postMessage(s: Services, row: TicketRow, message: MessageRow, status: TicketStatus) {
  const patch = { ...statusPatch(row, status, message.createdAt), updatedAt: message.createdAt };
  const statements: BatchItem<"sqlite">[] = [
    s.db.insert(ticketMessages).values(message),
    s.db
      .update(supportTickets)
      .set({ ...patch, messageCount: sql`${supportTickets.messageCount} + 1` })
      .where(owned(supportTickets, row.customerId, row.id)),
  ];
  await runBatch(s.db, statements);
  return { ...row, ...patch, messageCount: row.messageCount + 1 };
}

/**
 * POST /support/tickets/{id}/messages: the customer's message goes to the service team and puts
 * the ticket back in its queue: a closed ticket is reopened, an answered one is open again.
 */
export async function addTicketMessage(s: Services, principal: Principal, ticketId: string, body: string) {
  const row = await ticketOfAccount(s, principal, ticketId);
  const message: MessageRow = {
    id: newId(),
    customerId: row.customerId,
    ticketId: row.id,
    authorKind: "customer",
    authorUserId: principal.user.id,
    authorLabel: actingLabel(principal),
    body,
    createdAt: nowIso(),
  };
  const updated = await postMessage(s, row, message, "open");
  await mailServiceTeam(s, principal, updated, row.status === "closed" ? "Reopened by a new message" : "New message", body);
  return threadEntryOut(message);
}

async function mailServiceTeam(s: Services, principal: Principal, row: TicketRow, what: string, body: string) {
  const company = principal.customer.company ?? principal.customer.email;
  await s.mail.send({
    to: [s.config.SERVICE_TEAM_EMAIL],
    subject: `[Ticket ${company} #${row.ticketNo}] ${what}: ${row.subject}`,
    text: [
      `Account: ${company} (${row.customerId})`,
      `From: ${actingLabel(principal)}`,
      `Ticket: #${row.ticketNo} ${row.kind}, ${row.status} (${row.id})`,
      ...(row.callId ? [`Disputed call: ${row.callId}`] : []),
      "",
      body,
    ].join("\n"),
  });
}

// ---- The service team (platform administrators) ----

/** GET /admin/support/tickets: every account's tickets, newest first (the service team's queue). */
export async function listAllTickets({ db }: Services, admin: Principal, query: TicketListInput) {
  requirePlatformAdmin(admin);
  const filters: SQL[] = [];
  if (query.status) filters.push(eq(supportTickets.status, query.status));
  if (query.kind) filters.push(eq(supportTickets.kind, query.kind));
  return ticketPage(db, filters, query);
}

/**
 * POST /admin/support/tickets/{id}/messages: the service team's reply, on a ticket of any
 * account. It marks the ticket answered and is mailed to the user who opened it (the account's
 * address when that user is gone).
 */
export async function replyAsSupport(s: Services, admin: Principal, ticketId: string, body: string) {
  requirePlatformAdmin(admin);
  const row = await s.db.select().from(supportTickets).where(eq(supportTickets.id, ticketId)).get();
  if (!row) throw new NotFound("Ticket not found");
  const message: MessageRow = {
    id: newId(),
    customerId: row.customerId,
    ticketId: row.id,
    authorKind: "support",
    authorUserId: admin.user.id,
    authorLabel: SUPPORT_LABEL,
    body,
    createdAt: nowIso(),
  };
  await postMessage(s, row, message, "answered");
  await s.mail.send({
    to: [await customerAddress(s.db, row)],
    subject: `Re: [Ticket #${row.ticketNo}] ${row.subject}`,
    text: [`The service team answered your ticket #${row.ticketNo}.`, "", body, "", `Ticket id: ${row.id}`].join("\n"),
  });
  return threadEntryOut(message);
}

async function customerAddress(db: Db, row: TicketRow): Promise<string> {
  if (row.createdByUserId) {
    const opener = await db
      .select({ email: users.email, isActive: users.isActive })
      .from(users)
      .where(owned(users, row.customerId, row.createdByUserId))
      .get();
    if (opener?.isActive) return opener.email;
  }
  const account = await db.select({ email: customers.email }).from(customers).where(eq(customers.id, row.customerId)).get();
  return account!.email;
}
