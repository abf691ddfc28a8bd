// Platform-placed test calls, and the numbers an account has proven it controls.
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, createdAt, customerId, id, json, timestamp, updatedAt } from "./columns.ts";

export const testCalls = sqliteTable(
  "test_calls",
  {
    id: id(),
    customerId: customerId(),
    /** awaiting_confirm | queued | dialing | ringing | answered | done | failed | cancelled | expired */
    status: text("status").notNull(),
    number: text("number").notNull(),
    /** null: the platform's own caller ID. */
    callerId: text("caller_id"),
    destinationId: text("destination_id"),
    seconds: integer("seconds").notNull().default(30),
    /** route_test | scam_sample */
    speech: text("speech").notNull().default("route_test"),
    sipCallId: text("sip_call_id").notNull(),
    /** The call row the test produced, once the node reports it. */
    callId: text("call_id"),
    agentDestinationId: text("agent_destination_id"),
    instruction: text("instruction"),
    agentSipCallId: text("agent_sip_call_id"),
    agentCallId: text("agent_call_id"),
    /** Sip-node placing the call, so cancel reaches the right one. */
    nodeId: text("node_id"),
    answered: bool("answered"),
    sipCode: integer("sip_code"),
    sipReason: text("sip_reason"),
    talkSeconds: real("talk_seconds"),
    endedBy: text("ended_by"),
    error: text("error"),
    purpose: text("purpose").notNull().default("test"),
    createdBy: text("created_by"),
    confirmedAt: timestamp("confirmed_at"),
    confirmedBy: text("confirmed_by"),
    confirmUrl: text("confirm_url"),
    /** created_at + 10 minutes for a request that needs a person's confirmation. */
    confirmExpiresAt: timestamp("confirm_expires_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("test_calls_customer_created_idx").on(t.customerId, t.createdAt),
    index("test_calls_customer_sip_call_id_idx").on(t.customerId, t.sipCallId),
  ],
);

/**
 * Numbers the account has verified: usable as a test-call caller ID, and the only numbers the
 * scam sample and agent mode will ring.
 */
export const verifiedNumbers = sqliteTable(
  "verified_numbers",
  {
    id: id(),
    customerId: customerId(),
    /** Digits with optional leading +, as test-call numbers. */
    number: text("number").notNull(),
    label: text("label"),
    /** null while verification is pending. */
    verifiedAt: timestamp("verified_at"),
    /** call | sms | admin */
    verificationMethod: text("verification_method"),
    /** Hash of the one-time code played or sent to the number. */
    verificationCodeHash: text("verification_code_hash"),
    verificationExpiresAt: timestamp("verification_expires_at"),
    verificationAttempts: integer("verification_attempts").notNull().default(0),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("verified_numbers_customer_number_uq").on(t.customerId, t.number)],
);

/**
 * What the platform's operator allows one account's placed calls (test, verification and web-dialer
 * calls) beyond the defaults: number prefixes of refused ranges (premium rate) it may ring, and its
 * own daily caps (null: the configured ones). No row: the defaults.
 */
export const placedCallPolicies = sqliteTable("placed_call_policies", {
  customerId: text("customer_id").primaryKey(),
  /** E.164 prefixes ("+1900555") the number policy lets through for this account. */
  allowPrefixes: json<string[]>("allow_prefixes").notNull().default([]),
  callsPerDay: integer("calls_per_day"),
  minutesPerDay: integer("minutes_per_day"),
  updatedBy: text("updated_by"),
  updatedAt: updatedAt(),
});
