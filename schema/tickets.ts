// Support tickets between an account and the service team (questions, bugs, verdict disputes).
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, customerId, id, timestamp, updatedAt } from "./columns.ts";
import { TICKET_KINDS, TICKET_MESSAGE_AUTHORS, TICKET_STATUSES } from "./enums.ts";

export const supportTickets = sqliteTable(
  "support_tickets",
  {
    id: id(),
    customerId: customerId(),
    /** Per-account sequence, handed out by the account's AccountLedger like cases.case_no. */
    ticketNo: integer("ticket_no").notNull(),
    kind: text("kind", { enum: TICKET_KINDS }).notNull().default("question"),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    /** The call whose verdict is disputed, for kind analysis. */
    callId: text("call_id"),
    status: text("status", { enum: TICKET_STATUSES }).notNull().default("open"),
    /** Display name of the user who opened it. */
    createdBy: text("created_by"),
    /** That user: the service team's replies are mailed to them (else to the account's address). */
    createdByUserId: text("created_by_user_id"),
    closedAt: timestamp("closed_at"),
    /** Kept in step with ticket_messages (same batch). */
    messageCount: integer("message_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("support_tickets_customer_ticket_no_uq").on(t.customerId, t.ticketNo),
    index("support_tickets_customer_created_idx").on(t.customerId, t.createdAt),
    index("support_tickets_customer_status_created_idx").on(t.customerId, t.status, t.createdAt),
    index("support_tickets_customer_kind_created_idx").on(t.customerId, t.kind, t.createdAt),
    index("support_tickets_customer_call_idx").on(t.customerId, t.callId),
    // The service team's queue across accounts.
    index("support_tickets_status_updated_idx").on(t.status, t.updatedAt),
  ],
);

export const ticketMessages = sqliteTable(
  "ticket_messages",
  {
    id: id(),
    customerId: customerId(),
    ticketId: text("ticket_id").notNull(),
    /** Only a support reply marks the ticket answered. */
    authorKind: text("author_kind", { enum: TICKET_MESSAGE_AUTHORS }).notNull(),
    authorUserId: text("author_user_id"),
    authorLabel: text("author_label"),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("ticket_messages_customer_ticket_created_idx").on(t.customerId, t.ticketId, t.createdAt)],
);
