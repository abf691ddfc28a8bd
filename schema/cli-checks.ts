// Caller-ID (CLI) checks: a short call the platform places through an account's destination to a
// number it holds, and what that number saw; the numbers people host for the platform to hold; and
// the schedules that repeat a check or a route test (a test call) on a destination.
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, createdAt, customerId, id, micros, timestamp, updatedAt } from "./columns.ts";

export const cliChecks = sqliteTable(
  "cli_checks",
  {
    id: id(),
    customerId: customerId(),
    /** The route under test. */
    destinationId: text("destination_id").notNull(),
    /** ISO 3166-1 alpha-2 of the number called. */
    country: text("country").notNull(),
    /** The caller ID sent (E.164): one of the account's verified numbers, or the platform's. */
    callerId: text("caller_id").notNull(),
    /** The number called: a platform number or a hosted one. */
    number: text("number").notNull(),
    /** null: a platform number. */
    hostedNumberId: text("hosted_number_id"),
    /** The test call that places it (purpose cli_check). */
    testCallId: text("test_call_id").notNull(),
    scheduleId: text("schedule_id"),
    /** placing | completed | failed (the platform could not place it; its fee refunded) */
    status: text("status").notNull(),
    /** match | modified | withheld | missing | not_received, once known */
    result: text("result"),
    /** For modified: format | prefix | digits */
    change: text("change"),
    receivedFrom: text("received_from"),
    receivedDisplay: text("received_display"),
    receivedAsserted: text("received_asserted"),
    /** The Privacy header's values as they arrived, space-separated. */
    receivedPrivacy: text("received_privacy"),
    identityPresent: bool("identity_present"),
    arrivedAt: timestamp("arrived_at"),
    postDialMs: integer("post_dial_ms"),
    answerMs: integer("answer_ms"),
    /** MOS of the platform's sample as the held number received it. */
    mosSent: real("mos_sent"),
    /** MOS of the held number's tone as the platform received it. */
    mosReceived: real("mos_received"),
    sipCode: integer("sip_code"),
    sipReason: text("sip_reason"),
    error: text("error"),
    feeMicros: micros("fee_micros"),
    createdBy: text("created_by"),
    completedAt: timestamp("completed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("cli_checks_customer_created_idx").on(t.customerId, t.createdAt),
    index("cli_checks_status_number_idx").on(t.status, t.number),
    uniqueIndex("cli_checks_test_call_idx").on(t.testCallId),
  ],
);

export const hostedNumbers = sqliteTable(
  "hosted_numbers",
  {
    id: id(),
    /** The account that hosts it and earns its share. */
    customerId: customerId(),
    /** E.164. */
    number: text("number").notNull(),
    country: text("country").notNull(),
    /** How calls to it reach the platform, as the person described it (a SIP URI or a forwarding note). */
    reachBy: text("reach_by"),
    /** pending (never seen) | live | down (stopped answering) */
    status: text("status").notNull(),
    /** Set by test_hosted_number: a call to the number until then marks it live. */
    listeningUntil: timestamp("listening_until"),
    confirmedAt: timestamp("confirmed_at"),
    lastAnsweredAt: timestamp("last_answered_at"),
    checksAnswered: integer("checks_answered").notNull().default(0),
    /** Checks sent to it in a row that it did not receive. */
    misses: integer("misses").notNull().default(0),
    earningsMicros: micros("earnings_micros"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("hosted_numbers_number_idx").on(t.number), index("hosted_numbers_customer_idx").on(t.customerId, t.createdAt)],
);

export const cliSchedules = sqliteTable(
  "cli_schedules",
  {
    id: id(),
    customerId: customerId(),
    /** cli_check | test_call */
    kind: text("kind").notNull(),
    destinationId: text("destination_id").notNull(),
    /** cli_check: the country called. */
    country: text("country"),
    /** The caller ID (null: the platform's). */
    callerId: text("caller_id"),
    /** test_call: the number called. */
    number: text("number"),
    /** hourly | daily */
    every: text("every").notNull(),
    enabled: bool("enabled").notNull().default(true),
    nextRunAt: timestamp("next_run_at").notNull(),
    /** The check or test call of the latest run, and its outcome once known. */
    lastRunId: text("last_run_id"),
    lastRunAt: timestamp("last_run_at"),
    lastOutcome: text("last_outcome"),
    /** The outcome of the run before it, which an alert compares against. */
    previousOutcome: text("previous_outcome"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("cli_schedules_due_idx").on(t.enabled, t.nextRunAt), index("cli_schedules_customer_idx").on(t.customerId, t.createdAt)],
);
