// Support tickets between an account and the service team (questions, bugs, verdict disputes).
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, customerId, id, timestamp, updatedAt } from "./columns.ts";

export const supportTickets = sqliteTable(
  "support_tickets",
  {
    id: id(),
    customerId: customerId(),
    /** Per-account sequence, allocated in the insert like cases.case_no. */
    ticketNo: integer("ticket_no").notNull(),
    /** question | bug | feature | analysis | billing */
    kind: text("kind").notNull().default("question"),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    /** The call whose verdict is disputed, for kind analysis. */
    callId: text("call_id"),
    /** open | answered | closed */
    status: text("status").notNull().default("open"),
    createdBy: text("created_by"),
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
    /** customer | support; only a support reply marks the ticket answered. */
    authorKind: text("author_kind").notNull(),
    authorUserId: text("author_user_id"),
    authorLabel: text("author_label"),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("ticket_messages_customer_ticket_created_idx").on(t.customerId, t.ticketId, t.createdAt)],
);
