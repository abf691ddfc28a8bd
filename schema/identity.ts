// Accounts (customers), their users, and every credential that signs a user in.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, createdAt, customerId, id, json, timestamp, updatedAt } from "./columns.ts";

export type Profile = {
  switch_vendor?: string | null;
  expected_volume?: string | null;
  contact_role?: string | null;
  region?: string | null;
  referral_source?: string | null;
  phone?: string | null;
};

export type BillingAddress = {
  name?: string | null;
  line1?: string | null;
  line2?: string | null;
  city?: string | null;
  postal_code?: string | null;
  country?: string | null;
  province?: string | null;
};

/** One row per account. Balance, ports in use and cycle minutes live in the AccountLedger Durable Object. */
export const customers = sqliteTable(
  "customers",
  {
    id: id(),
    email: text("email").notNull(),
    company: text("company"),
    phone: text("phone"),
    taxId: text("tax_id"),
    country: text("country"),
    province: text("province"),
    /** customer | admin (platform administrator account). */
    role: text("role").notNull().default("customer"),
    /** active | suspended */
    status: text("status").notNull().default("active"),
    planCode: text("plan_code").notNull(),
    /** Ports granted on top of the plan's (null: the plan's own). */
    portsOverride: integer("ports_override"),
    planStartedAt: timestamp("plan_started_at"),
    planRenewsAt: timestamp("plan_renews_at"),
    webhookUrl: text("webhook_url"),
    /** AES-GCM ciphertext of the webhook signing secret. */
    webhookSecretEnc: text("webhook_secret_enc"),
    twofaEnabled: bool("twofa_enabled").notNull().default(false),
    dialerEnabled: bool("dialer_enabled").notNull().default(false),
    testCallsEnabled: bool("test_calls_enabled").notNull().default(true),
    aiMode: text("ai_mode").notNull().default("power"),
    dataRegion: text("data_region").notNull().default("ca"),
    mediaRegion: text("media_region").notNull().default("ca"),
    pilotStartedAt: timestamp("pilot_started_at"),
    pilotEndsAt: timestamp("pilot_ends_at"),
    pilotMinutesLimit: integer("pilot_minutes_limit"),
    termsVersion: text("terms_version"),
    termsAcceptedAt: timestamp("terms_accepted_at"),
    profile: json<Profile>("profile"),
    profileCompletedAt: timestamp("profile_completed_at"),
    billingAddress: json<BillingAddress>("billing_address"),
    lowBalanceAlertEnabled: bool("low_balance_alert_enabled").notNull().default(true),
    lowBalanceThresholdMicros: integer("low_balance_threshold_micros").notNull().default(5_000_000),
    lowBalanceAlertArmed: bool("low_balance_alert_armed").notNull().default(true),
    attribution: json<Record<string, unknown>>("attribution"),
    /** Access tokens issued before this instant (second resolution) are refused, for every user. */
    sessionsRevokedAt: timestamp("sessions_revoked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("customers_email_uq").on(t.email)],
);

export const users = sqliteTable(
  "users",
  {
    id: id(),
    customerId: customerId(),
    /** Lower-cased; one sign-in identity across the platform. */
    email: text("email").notNull(),
    name: text("name"),
    /** owner | member */
    role: text("role").notNull(),
    /** Versioned hash: "pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>". */
    passwordHash: text("password_hash").notNull(),
    isActive: bool("is_active").notNull().default(true),
    mustChangePassword: bool("must_change_password").notNull().default(false),
    /**
     * A temporary password (invitation, resend) is a one-time sign-in code: good until this instant
     * and for one sign-in (temporary_password_used_at), since the mail carrying it stays readable
     * in the outbox. Both cleared when the member chooses a password.
     */
    temporaryPasswordExpiresAt: timestamp("temporary_password_expires_at"),
    temporaryPasswordUsedAt: timestamp("temporary_password_used_at"),
    isPlatformAdmin: bool("is_platform_admin").notNull().default(false),
    lastLoginAt: timestamp("last_login_at"),
    lastLoginIp: text("last_login_ip"),
    sessionsRevokedAt: timestamp("sessions_revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email), index("users_customer_idx").on(t.customerId)],
);

/** Browser refresh tokens, stored only as SHA-256 hashes, rotated on use, grouped in families. */
export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    id: id(),
    familyId: text("family_id").notNull(),
    customerId: customerId(),
    userId: text("user_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    impersonatedBy: text("impersonated_by"),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    rotatedAt: timestamp("rotated_at"),
    revokedAt: timestamp("revoked_at"),
  },
  (t) => [
    uniqueIndex("refresh_tokens_hash_uq").on(t.tokenHash),
    index("refresh_tokens_family_idx").on(t.familyId),
    index("refresh_tokens_user_idx").on(t.userId),
    index("refresh_tokens_customer_idx").on(t.customerId),
  ],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: id(),
    customerId: customerId(),
    userId: text("user_id").notNull(),
    name: text("name").notNull(),
    /** The visible start of the key, e.g. "csk_AbCd". */
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    lastUsedAt: timestamp("last_used_at"),
    revokedAt: timestamp("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.keyHash), index("api_keys_customer_idx").on(t.customerId)],
);

export const passkeys = sqliteTable(
  "passkeys",
  {
    id: id(),
    customerId: customerId(),
    userId: text("user_id").notNull(),
    /** base64url credential id from the authenticator. */
    credentialId: text("credential_id").notNull(),
    /** base64url COSE public key. */
    publicKey: text("public_key").notNull(),
    signCount: integer("sign_count").notNull().default(0),
    transports: json<string[]>("transports"),
    name: text("name").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at"),
  },
  (t) => [uniqueIndex("passkeys_credential_uq").on(t.credentialId), index("passkeys_user_idx").on(t.userId)],
);

/** Who did what on an account (profile edits, impersonations, credential changes). */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: id(),
    customerId: customerId(),
    actorUserId: text("actor_user_id"),
    actorLabel: text("actor_label"),
    action: text("action").notNull(),
    detail: json<Record<string, unknown>>("detail"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_customer_created_idx").on(t.customerId, t.createdAt)],
);

/** Single-use tokens already spent (passkey challenges): a second use finds its id here. */
export const spentTokens = sqliteTable(
  "spent_tokens",
  {
    jti: text("jti").primaryKey(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("spent_tokens_expires_idx").on(t.expiresAt)],
);
