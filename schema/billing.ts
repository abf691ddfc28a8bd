// Card payments, provider callbacks and monthly invoices.
// The ledger itself (balance, entries, ports in use, cycle minutes) is NOT in D1: it lives in each
// account's AccountLedger Durable Object storage, the only writer of money. These tables record
// what the payment provider did and what was invoiced.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, customerId, id, json, micros, timestamp } from "./columns.ts";
import type { BillingAddress } from "./identity.ts";

export type InvoiceLine = {
  kind: string;
  description: string;
  quantity?: number;
  unit_micros?: number;
  amount_micros: number;
};

/** One tax on an invoice (GST or HST), rate in basis points. */
export type InvoiceTax = { name: string; rate_bps: number; amount_micros: number };

export const payments = sqliteTable(
  "payments",
  {
    id: id(),
    customerId: customerId(),
    /** stripe, … */
    provider: text("provider").notNull(),
    /** The provider's checkout session id. */
    providerSessionId: text("provider_session_id").notNull(),
    /** topup | subscription */
    kind: text("kind").notNull(),
    amountMicros: micros("amount_micros"),
    currency: text("currency").notNull().default("usd"),
    /** pending | complete | expired | failed */
    status: text("status").notNull().default("pending"),
    /** For subscriptions: the plan being bought or renewed. */
    planCode: text("plan_code"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at"),
  },
  (t) => [
    uniqueIndex("payments_provider_session_uq").on(t.providerSessionId),
    index("payments_customer_created_idx").on(t.customerId, t.createdAt),
  ],
);

/** Every provider callback, recorded first so a redelivered event is credited only once. */
export const paymentEvents = sqliteTable(
  "payment_events",
  {
    id: id(),
    provider: text("provider").notNull(),
    providerEventId: text("provider_event_id").notNull(),
    type: text("type").notNull(),
    /** Resolved from the session's metadata; null when the event names no account we know. */
    customerId: text("customer_id"),
    paymentId: text("payment_id"),
    payload: json<Record<string, unknown>>("payload"),
    processedAt: timestamp("processed_at"),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("payment_events_provider_event_uq").on(t.provider, t.providerEventId),
    index("payment_events_customer_created_idx").on(t.customerId, t.createdAt),
  ],
);

/** Monthly usage invoices, one per account and calendar month (UTC); never changed once issued. */
export const invoices = sqliteTable(
  "invoices",
  {
    id: id(),
    customerId: customerId(),
    /** Platform-wide, consecutive from 1 with no gaps (taken in the insert itself; the default only lets the column be added). */
    number: integer("number").notNull().default(0),
    periodStart: text("period_start").notNull(),
    periodEnd: text("period_end").notNull(),
    lines: json<InvoiceLine[]>("lines").notNull(),
    subtotalMicros: micros("subtotal_micros"),
    taxMicros: micros("tax_micros"),
    taxes: json<InvoiceTax[]>("taxes").notNull().default([]),
    totalMicros: micros("total_micros"),
    /** Top-ups and credits of the month, shown apart: not part of the subtotal. */
    credits: json<InvoiceLine[]>("credits").notNull().default([]),
    /** paid: settled from the prepaid balance at issue; due: the balance did not cover the tax (amount_due). */
    status: text("status").notNull().default("paid"),
    amountDueMicros: micros("amount_due_micros"),
    currency: text("currency").notNull().default("usd"),
    /** Billing profile at issue time; it decides the tax (GST/HST by province for CA). */
    billingAddress: json<BillingAddress>("billing_address"),
    taxId: text("tax_id"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("invoices_customer_period_uq").on(t.customerId, t.periodStart), uniqueIndex("invoices_number_uq").on(t.number)],
);
