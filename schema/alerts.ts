// Alert rules (e-mail and connected channels), and the delivery logs of alerts and the account webhook.
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, createdAt, customerId, id, json, timestamp, updatedAt } from "./columns.ts";

export const alertRules = sqliteTable(
  "alert_rules",
  {
    id: id(),
    customerId: customerId(),
    name: text("name").notNull(),
    enabled: bool("enabled").notNull().default(true),
    minProbability: integer("min_probability").notNull().default(70),
    /** null or empty: any. */
    categories: json<string[]>("categories"),
    recommendations: json<string[]>("recommendations"),
    /** null or empty: the account e-mail. */
    recipients: json<string[]>("recipients"),
    throttleMinutes: integer("throttle_minutes").notNull().default(0),
    includeTranscript: bool("include_transcript").notNull().default(false),
    includeSipLog: bool("include_sip_log").notNull().default(false),
    includePcap: bool("include_pcap").notNull().default(false),
    includeRecording: bool("include_recording").notNull().default(false),
    /**
     * fraud (verdict-driven), quality (tied to max_mos), or screening (when admission's screening
     * of a call matches identity_statuses and screening_rules, before any verdict).
     */
    trigger: text("trigger").notNull().default("fraud"),
    /** The call's identity status at admission (verified, failed, absent) the rule needs; null or empty: any. */
    identityStatuses: json<string[]>("identity_statuses"),
    /** Screening rules (schema/screening.ts) one of which must have flagged the call; null or empty: no condition (screening trigger: any flag). */
    screeningRules: json<string[]>("screening_rules"),
    maxMos: real("max_mos"),
    channelIds: json<string[]>("channel_ids"),
    emailEnabled: bool("email_enabled").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("alert_rules_customer_created_idx").on(t.customerId, t.createdAt)],
);

/** Connected delivery channels (chat webhooks and the like) that alert rules name in channel_ids. */
export const alertChannels = sqliteTable(
  "alert_channels",
  {
    id: id(),
    customerId: customerId(),
    kind: text("kind").notNull(),
    label: text("label"),
    /** Non-secret settings (channel name, URL host …). */
    config: json<Record<string, unknown>>("config"),
    /** AES-GCM ciphertext of the channel's secret (webhook URL with token, bot token …). */
    secretEnc: text("secret_enc"),
    enabled: bool("enabled").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("alert_channels_customer_created_idx").on(t.customerId, t.createdAt)],
);

/** One row per alert sent (or tried); the newest row of a rule decides throttling. */
export const alertDeliveries = sqliteTable(
  "alert_deliveries",
  {
    id: id(),
    customerId: customerId(),
    ruleId: text("rule_id").notNull(),
    callId: text("call_id"),
    /** null for the e-mail delivery, else the alert channel. */
    channelId: text("channel_id"),
    /** sent | failed | throttled */
    status: text("status").notNull(),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [
    index("alert_deliveries_customer_rule_created_idx").on(t.customerId, t.ruleId, t.createdAt),
    index("alert_deliveries_customer_call_idx").on(t.customerId, t.callId),
  ],
);

/** Account webhook deliveries (call.analyzed, webhook.test …), retried from a queue. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: id(),
    customerId: customerId(),
    /** Event id sent in the payload; receivers de-duplicate retries by it. */
    eventId: text("event_id").notNull(),
    kind: text("kind").notNull(),
    callId: text("call_id"),
    url: text("url").notNull(),
    /** pending | delivered | failed */
    status: text("status").notNull().default("pending"),
    statusCode: integer("status_code"),
    attempts: integer("attempts").notNull().default(0),
    error: text("error"),
    latencyMs: integer("latency_ms"),
    /** The JSON body, kept so every attempt sends the same bytes (each signed anew with its own timestamp). */
    payload: text("payload"),
    /** When the next attempt is due while pending; null once delivered or given up. */
    nextAttemptAt: timestamp("next_attempt_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deliveredAt: timestamp("delivered_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_uq").on(t.eventId),
    index("webhook_deliveries_customer_created_idx").on(t.customerId, t.createdAt),
  ],
);

/** Every attempt of a webhook delivery, in order: what the receiver answered or why nothing was sent. */
export const webhookDeliveryAttempts = sqliteTable(
  "webhook_delivery_attempts",
  {
    id: id(),
    customerId: customerId(),
    deliveryId: text("delivery_id").notNull(),
    attempt: integer("attempt").notNull(),
    url: text("url"),
    statusCode: integer("status_code"),
    error: text("error"),
    latencyMs: integer("latency_ms"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("webhook_delivery_attempts_delivery_attempt_uq").on(t.deliveryId, t.attempt)],
);
