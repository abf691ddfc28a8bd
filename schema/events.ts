// Portal activity events and the embedded mail adapter's outbox.
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, customerId, id, json, timestamp } from "./columns.ts";

/** POST /customer/events: page_view {path} and feature_used {name} only; never query strings or form values. */
export const portalEvents = sqliteTable(
  "portal_events",
  {
    id: id(),
    customerId: customerId(),
    userId: text("user_id"),
    kind: text("kind").notNull(),
    props: json<Record<string, string>>("props"),
    createdAt: createdAt(),
  },
  (t) => [
    index("portal_events_customer_created_idx").on(t.customerId, t.createdAt),
    // Product usage across accounts (admin reporting).
    index("portal_events_kind_created_idx").on(t.kind, t.createdAt),
  ],
);

/** Mail written by the embedded (offline) mail adapter; readable in development and by tests. */
export const outboxEmails = sqliteTable(
  "outbox_emails",
  {
    id: id(),
    /** Comma-separated recipients. */
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    text: text("text"),
    html: text("html"),
    /** What was attached (name, type, size), never the bytes. */
    attachments: json<Array<{ filename: string; content_type: string; size: number }>>("attachments"),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at"),
    error: text("error"),
  },
  (t) => [index("outbox_emails_created_idx").on(t.createdAt), index("outbox_emails_to_idx").on(t.toAddress)],
);
