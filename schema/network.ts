// Trunk side of an account: whitelisted source addresses, destinations, and prefix routing.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, createdAt, customerId, id, json, timestamp, updatedAt } from "./columns.ts";
import { DESTINATION_KINDS, MONITOR_STATUSES, PROCESSING_POLICIES, SAMPLE_MODES, TRANSFER_MODES, TRANSPORTS } from "./enums.ts";

/**
 * Whitelisted source ranges. Ownership across accounts is serialised by the TrunkRegistry DO;
 * the range columns let it (and admission) compare addresses as text: every address is mapped
 * into the IPv6 space (IPv4 as ::ffff:a.b.c.d) and written as 32 lowercase hex digits.
 */
export const whitelistIps = sqliteTable(
  "whitelist_ips",
  {
    id: id(),
    customerId: customerId(),
    /** Canonical form: network address with prefix length, e.g. "203.0.113.0/24", "2001:db8::/48". */
    cidr: text("cidr").notNull(),
    /** 4 or 6: the family the customer wrote, for display and validation. */
    ipVersion: integer("ip_version").notNull(),
    /** First and last address of the range, 32 lowercase hex digits each. */
    rangeStart: text("range_start").notNull(),
    rangeEnd: text("range_end").notNull(),
    label: text("label"),
    /** With a dial prefix the entry is one sub-customer behind a shared address. */
    dialPrefix: text("dial_prefix"),
    destinationId: text("destination_id"),
    enabled: bool("enabled").notNull().default(true),
    /**
     * Proof of control (docs/decisions/trunk-and-admission.md#proof-of-control-of-whitelisted-ranges, finding 4): none | proven (the account read
     * back the code our OPTIONS answer carried to an address in the range) | approved (a platform
     * administrator).
     */
    proof: text("proof").notNull().default("none"),
    /** Random per entry; the proof code is an HMAC of the entry id and this. */
    proofNonce: text("proof_nonce").notNull().default(""),
    provenAt: timestamp("proven_at"),
    /**
     * first: no other account claimed an overlapping range when this was made | second: another
     * account's unproven claim overlapped it (admits calls once proven) | displaced: another account
     * proved control of an overlapping range.
     */
    standing: text("standing").notNull().default("first"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("whitelist_ips_customer_created_idx").on(t.customerId, t.createdAt),
    // Same address twice on one account only as different sub-customers. NULLs never collide in a
    // SQLite unique index, so entries without a prefix get their own partial index.
    uniqueIndex("whitelist_ips_customer_cidr_prefix_uq").on(t.customerId, t.cidr, t.dialPrefix),
    uniqueIndex("whitelist_ips_customer_cidr_noprefix_uq")
      .on(t.customerId, t.cidr)
      .where(sql`${t.dialPrefix} is null`),
    // Cross-account overlap check and source lookup: range_start <= :hi AND range_end >= :lo.
    index("whitelist_ips_range_idx").on(t.rangeStart, t.rangeEnd),
    index("whitelist_ips_customer_destination_idx").on(t.customerId, t.destinationId),
  ],
);

/** Where admitted calls go: a SIP endpoint or a voice-AI agent. Secrets are write-only. */
export const destinations = sqliteTable(
  "destinations",
  {
    id: id(),
    customerId: customerId(),
    host: text("host").notNull(),
    port: integer("port").notNull().default(5060),
    transport: text("transport", { enum: TRANSPORTS }).notNull().default("udp"),
    isDefault: bool("is_default").notNull().default(false),
    label: text("label"),
    kind: text("kind", { enum: DESTINATION_KINDS }).notNull().default("sip"),
    provider: text("provider"),
    agentId: text("agent_id"),
    config: json<Record<string, unknown>>("config"),
    techPrefix: text("tech_prefix"),
    // Digest credential the destination challenges with (has_credential = auth_password_enc set).
    authUsername: text("auth_username"),
    /** AES-GCM ciphertext. */
    authPasswordEnc: text("auth_password_enc"),
    authRealm: text("auth_realm"),
    /** Secret the voice-AI provider signs its callbacks with (AES-GCM ciphertext). */
    webhookSecretEnc: text("webhook_secret_enc"),
    /** The provider's API key, used for transfers and agent lookups (AES-GCM ciphertext). */
    providerApiKeyEnc: text("provider_api_key_enc"),
    /** SHA-256 of the path token of this destination's inbound webhook URL; looked up on every callback. */
    webhookTokenHash: text("webhook_token_hash"),
    /** AES-GCM ciphertext of the same token, so webhook_url can be shown again after creation. */
    webhookTokenEnc: text("webhook_token_enc"),
    webhookLastEventAt: timestamp("webhook_last_event_at"),
    webhookLastStatus: text("webhook_last_status"),
    webhookLastError: text("webhook_last_error"),
    /** full, or a reduced policy such as relay_only (nothing recorded); copied onto each call. */
    processing: text("processing", { enum: PROCESSING_POLICIES }).notNull().default("full"),
    /** Analyse one call in sample_rate. */
    sampleRate: integer("sample_rate").notNull().default(1),
    sampleMode: text("sample_mode", { enum: SAMPLE_MODES }).notNull().default("analyse"),
    transferMode: text("transfer_mode", { enum: TRANSFER_MODES }).notNull().default("platform"),
    monitorEnabled: bool("monitor_enabled").notNull().default(false),
    /** null until the first OPTIONS check has told us. */
    monitorSupported: bool("monitor_supported"),
    monitorStatus: text("monitor_status", { enum: MONITOR_STATUSES }).notNull().default("unknown"),
    monitorLastCheckAt: timestamp("monitor_last_check_at"),
    monitorLastChangeAt: timestamp("monitor_last_change_at"),
    monitorRttMs: integer("monitor_rtt_ms"),
    monitorLastCode: integer("monitor_last_code"),
    monitorLastError: text("monitor_last_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("destinations_customer_created_idx").on(t.customerId, t.createdAt),
    index("destinations_customer_default_idx").on(t.customerId, t.isDefault),
    uniqueIndex("destinations_webhook_token_uq").on(t.webhookTokenHash),
    // The scheduled OPTIONS sweep reads only monitored destinations, across accounts.
    index("destinations_monitor_idx").on(t.monitorEnabled, t.monitorLastCheckAt),
  ],
);

/** Longest matching prefix of the dialed number wins, then the lowest priority value. */
export const routingRules = sqliteTable(
  "routing_rules",
  {
    id: id(),
    customerId: customerId(),
    prefix: text("prefix").notNull(),
    destinationId: text("destination_id").notNull(),
    enabled: bool("enabled").notNull().default(true),
    priority: integer("priority").notNull().default(100),
    label: text("label"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("routing_rules_customer_prefix_destination_uq").on(t.customerId, t.prefix, t.destinationId),
    index("routing_rules_customer_destination_idx").on(t.customerId, t.destinationId),
  ],
);
