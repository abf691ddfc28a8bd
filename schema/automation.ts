// Automation rules turn verdicts into controlled numbers (block or divert the calling ANI).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, createdAt, customerId, id, json, timestamp, updatedAt } from "./columns.ts";

export const automationRules = sqliteTable(
  "automation_rules",
  {
    id: id(),
    customerId: customerId(),
    name: text("name").notNull(),
    enabled: bool("enabled").notNull().default(true),
    minProbability: integer("min_probability").notNull().default(90),
    /** Verdict recommendations that trigger the rule; null or empty: any. */
    recommendations: json<string[]>("recommendations"),
    /** The call's identity status at admission (verified, failed, absent) the rule needs; null or empty: any. */
    identityStatuses: json<string[]>("identity_statuses"),
    /** Screening rules (schema/screening.ts) one of which must have flagged the call; null or empty: no condition. */
    screeningRules: json<string[]>("screening_rules"),
    /** block | divert */
    action: text("action").notNull().default("block"),
    divertDestinationId: text("divert_destination_id"),
    /** How long the resulting control lasts; null: until released. */
    durationHours: integer("duration_hours"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("automation_rules_customer_created_idx").on(t.customerId, t.createdAt)],
);

/** Controlled numbers, consulted at admission: active while released_at is null and expires_at is in the future (or null). */
export const aniControls = sqliteTable(
  "ani_controls",
  {
    id: id(),
    customerId: customerId(),
    /** Normalised the same way as calls.ani at admission. */
    ani: text("ani").notNull(),
    /** block | divert */
    action: text("action").notNull(),
    divertDestinationId: text("divert_destination_id"),
    reason: text("reason"),
    /** The rule and the call whose verdict created this control (null when set by hand). */
    ruleId: text("rule_id"),
    callId: text("call_id"),
    expiresAt: timestamp("expires_at"),
    releasedAt: timestamp("released_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("ani_controls_customer_ani_idx").on(t.customerId, t.ani),
    // List with include_released=false: released_at IS NULL, newest first.
    index("ani_controls_customer_released_created_idx").on(t.customerId, t.releasedAt, t.createdAt),
  ],
);
