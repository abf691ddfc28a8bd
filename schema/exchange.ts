// Wholesale exchange: accounts (keyed by the integer i_account of the exchange API), the eSIM
// catalogue, issued eSIMs and orders, and IoT history. Balances are NOT here: each exchange
// account's AccountLedger Durable Object owns its balance and debits purchases.
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, createdAt, json, micros, timestamp, updatedAt } from "./columns.ts";

export const exchangeAccounts = sqliteTable(
  "exchange_accounts",
  {
    iAccount: integer("i_account").primaryKey({ autoIncrement: true }),
    /** Digest username and legacy api_login. */
    username: text("username").notNull(),
    /** buyer | seller */
    role: text("role").notNull().default("buyer"),
    /**
     * API keys, AES-GCM ciphertext. Kept decryptable (not hashed) because both Digest (HA1 for MD5
     * and SHA-256, per realm) and the legacy signature sha256(controller + api_key + login + ts)
     * need the key itself.
     */
    buyerKeyEnc: text("buyer_key_enc"),
    sellerKeyEnc: text("seller_key_enc"),
    /** active | suspended */
    status: text("status").notNull().default("active"),
    /** Per-account overrides of the platform rate limits; null: the default. */
    hourlyQuota: integer("hourly_quota"),
    perSecondCap: integer("per_second_cap"),
    /**
     * RFC 7616 userhash of the username, H(username ":" realm), per algorithm, so a Digest request
     * with userhash=true finds its account. Computed under the realm in force when the account was
     * created or its key last rotated.
     */
    userhashSha256: text("userhash_sha256"),
    userhashMd5: text("userhash_md5"),
    /** Digest answers computed with MD5 are accepted (opt-in, for old clients); SHA-256 always is. */
    digestMd5: bool("digest_md5").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("exchange_accounts_username_uq").on(t.username),
    index("exchange_accounts_userhash_sha256_idx").on(t.userhashSha256),
    index("exchange_accounts_userhash_md5_idx").on(t.userhashMd5),
  ],
);

/** Valid values of the market `country` parameter. */
export const esimCountries = sqliteTable("esim_countries", {
  /** Uppercase English name, e.g. "UNITED KINGDOM". */
  name: text("name").primaryKey(),
  iso2: text("iso2").notNull(),
});

/** Sellers of eSIM packages (esim_vendor = login, i_vendor = id). */
export const esimVendors = sqliteTable(
  "esim_vendors",
  {
    iVendor: integer("i_vendor").primaryKey({ autoIncrement: true }),
    login: text("login").notNull(),
    name: text("name").notNull(),
    /** SM-DP+ server profiles of this vendor are downloaded from. */
    smDpAddress: text("sm_dp_address"),
    active: bool("active").notNull().default(true),
  },
  (t) => [uniqueIndex("esim_vendors_login_uq").on(t.login)],
);

export const esimPackages = sqliteTable(
  "esim_packages",
  {
    iEsimPackage: integer("i_esim_package").primaryKey({ autoIncrement: true }),
    iVendor: integer("i_vendor").notNull(),
    name: text("name").notNull(),
    /** Uppercase country names (esim_countries.name) the package covers. */
    countries: json<string[]>("countries").notNull(),
    /** -1: unlimited. */
    dataGb: real("data_gb").notNull(),
    validityDays: integer("validity_days").notNull(),
    /** price_with_fee = price_micros + fee_micros. */
    priceMicros: micros("price_micros"),
    feeMicros: micros("fee_micros"),
    /** universal (any destination, extended by top-ups) | regional */
    kind: text("kind").notNull().default("universal"),
    active: bool("active").notNull().default(true),
  },
  (t) => [index("esim_packages_active_vendor_idx").on(t.active, t.iVendor), index("esim_packages_active_data_idx").on(t.active, t.dataGb)],
);

export const esimTopupPackages = sqliteTable("esim_topup_packages", {
  packageTypeId: integer("package_type_id").primaryKey({ autoIncrement: true }),
  /** null: offered for eSIMs of any vendor. */
  iVendor: integer("i_vendor"),
  name: text("name").notNull(),
  dataGb: real("data_gb").notNull(),
  validityDays: integer("validity_days").notNull(),
  /** When validity starts, e.g. on purchase or on first use in a supported country. */
  activationPolicy: text("activation_policy").notNull(),
  supportedCountries: json<string[]>("supported_countries").notNull(),
  /** price_with_fee = price_micros + fee_micros. */
  priceMicros: micros("price_micros"),
  feeMicros: micros("fee_micros"),
  active: bool("active").notNull().default(true),
});

export const esims = sqliteTable(
  "esims",
  {
    /** 19-20 digits ending in a Luhn check digit. */
    iccid: text("iccid").primaryKey(),
    iAccount: integer("i_account").notNull(),
    iEsimPackage: integer("i_esim_package").notNull(),
    smDpAddress: text("sm_dp_address").notNull(),
    matchingId: text("matching_id").notNull(),
    /** For manual entry; the LPA string is "LPA:1$<sm_dp_address>$<matching_id>". The QR PNG is rendered on read. */
    activationCode: text("activation_code").notNull(),
    lpa: text("lpa").notNull(),
    /** RELEASED | DOWNLOADED | INSTALLED | ENABLED | DISABLED | DELETED */
    status: text("status").notNull().default("RELEASED"),
    /** The eUICC the profile was downloaded to, from the SM-DP+ notification. */
    eid: text("eid"),
    /** Days of on_first_use top-ups waiting for the eSIM's next enable. */
    pendingValidityDays: integer("pending_validity_days").notNull().default(0),
    statusMessage: text("status_message"),
    dataAllowanceBytes: integer("data_allowance_bytes").notNull().default(0),
    dataUsedBytes: integer("data_used_bytes").notNull().default(0),
    expiresAt: timestamp("expires_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("esims_account_created_idx").on(t.iAccount, t.createdAt), uniqueIndex("esims_matching_id_uq").on(t.matchingId)],
);

/** Purchases and top-ups. create_ts is ISO 8601 UTC here; the API formats it as YYYY-MM-DD HH:MM:SS. */
export const esimOrders = sqliteTable(
  "esim_orders",
  {
    iEsimOrder: integer("i_esim_order").primaryKey({ autoIncrement: true }),
    orderUuid: text("order_uuid").notNull(),
    iAccount: integer("i_account").notNull(),
    /** purchase | top-up */
    orderType: text("order_type").notNull(),
    iccid: text("iccid"),
    iEsimPackage: integer("i_esim_package"),
    packageTypeId: integer("package_type_id"),
    packageName: text("package_name").notNull(),
    amountChargedMicros: micros("amount_charged_micros"),
    /** complete | pending | failed */
    status: text("status").notNull(),
    error: text("error"),
    createTs: text("create_ts").notNull(),
  },
  (t) => [
    uniqueIndex("esim_orders_order_uuid_uq").on(t.orderUuid),
    index("esim_orders_account_create_ts_idx").on(t.iAccount, t.createTs),
    index("esim_orders_iccid_idx").on(t.iccid),
  ],
);

/** SM-DP+ notifications (ES9+ handleNotification: download, install, enable, disable, delete). */
export const esimNotifications = sqliteTable(
  "esim_notifications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    iccid: text("iccid").notNull(),
    eid: text("eid"),
    /** The eUICC's notification sequence number. */
    seqNumber: integer("seq_number"),
    operation: text("operation").notNull(),
    payload: json<Record<string, unknown>>("payload"),
    receivedAt: text("received_at").notNull(),
    processedAt: timestamp("processed_at"),
    error: text("error"),
  },
  (t) => [index("esim_notifications_iccid_received_idx").on(t.iccid, t.receivedAt)],
);

export const iotDevices = sqliteTable(
  "iot_devices",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    iAccount: integer("i_account").notNull(),
    /** The account's own device identifier, as shown in the history. */
    device: text("device").notNull(),
    iccid: text("iccid"),
    label: text("label"),
    /** SHA-256 hex of the device's ingestion token (the token is shown once). */
    tokenHash: text("token_hash"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("iot_devices_account_device_uq").on(t.iAccount, t.device), uniqueIndex("iot_devices_token_hash_uq").on(t.tokenHash)],
);

export const iotEvents = sqliteTable(
  "iot_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    iAccount: integer("i_account").notNull(),
    device: text("device").notNull(),
    iccid: text("iccid"),
    /** The event's id, also its AccountLedger entry ("iot:<event_uuid>"). */
    eventUuid: text("event_uuid"),
    ts: text("ts").notNull(),
    topic: text("topic").notNull(),
    payload: text("payload"),
    /** inbound | outbound */
    direction: text("direction").notNull().default("inbound"),
    chargedMicros: micros("charged_micros"),
  },
  (t) => [index("iot_events_account_ts_idx").on(t.iAccount, t.ts), uniqueIndex("iot_events_event_uuid_uq").on(t.eventUuid)],
);

/** Voice and SMS market rates published by sellers (i_vendor is the seller's i_account). */
export const exchangeMarketRates = sqliteTable(
  "exchange_market_rates",
  {
    iRate: integer("i_rate").primaryKey({ autoIncrement: true }),
    iVendor: integer("i_vendor").notNull(),
    /** voice (price per minute) | sms (price per message) */
    service: text("service").notNull(),
    /** Uppercase country name (esim_countries.name). */
    country: text("country").notNull(),
    /** E.164 digits without "+", 1-15. */
    prefix: text("prefix").notNull(),
    description: text("description"),
    /** price_with_fee = price_micros + fee_micros. */
    priceMicros: micros("price_micros"),
    feeMicros: micros("fee_micros"),
    active: bool("active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("exchange_market_rates_vendor_service_prefix_uq").on(t.iVendor, t.service, t.prefix),
    index("exchange_market_rates_active_service_prefix_idx").on(t.active, t.service, t.prefix),
    index("exchange_market_rates_active_country_idx").on(t.active, t.country),
  ],
);

/** Highest nonce count seen per server nonce, so a replayed Digest nc is refused. */
export const digestNonceCounters = sqliteTable(
  "digest_nonce_counters",
  {
    nonce: text("nonce").primaryKey(),
    lastNc: integer("last_nc").notNull().default(0),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("digest_nonce_counters_expires_idx").on(t.expiresAt)],
);

/**
 * Idempotency-Key claims of buyer purchases (IETF httpapi idempotency-key draft): one row per
 * (account, key), inserted before the debit as the claim; `response` is the first answer, replayed
 * to retries. Rows are swept 24 h after created_at (worker/cron/exchange-idempotency.ts).
 */
export const exchangeIdempotencyKeys = sqliteTable(
  "exchange_idempotency_keys",
  {
    iAccount: integer("i_account").notNull(),
    key: text("key").notNull(),
    /** sha-256 of the operation and its validated fields: the same key with another body is refused. */
    requestHash: text("request_hash").notNull(),
    /** The answer's JSON once the first request finished; null while it is in flight (or was interrupted). */
    response: text("response"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("exchange_idempotency_keys_account_key_uq").on(t.iAccount, t.key),
    index("exchange_idempotency_keys_created_idx").on(t.createdAt),
  ],
);
