// Password-protected public links to one call, and setup-call requests from the public site.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, customerId, id, json, timestamp } from "./columns.ts";

export const callShares = sqliteTable(
  "call_shares",
  {
    id: id(),
    customerId: customerId(),
    callId: text("call_id").notNull(),
    /** SHA-256 of the URL token; public routes look the link up by it. */
    tokenHash: text("token_hash").notNull(),
    /**
     * AES-GCM ciphertext of the URL token: the share list returns `url` on every read, and the
     * link password (not the token) is what protects the call.
     */
    tokenEnc: text("token_enc").notNull(),
    /** Same versioned PBKDF2 format as users.password_hash; rotate replaces it. */
    passwordHash: text("password_hash").notNull(),
    label: text("label"),
    /** Display name of the user who created it. */
    createdBy: text("created_by"),
    createdAt: createdAt(),
    /** null: never expires. */
    expiresAt: timestamp("expires_at"),
    revokedAt: timestamp("revoked_at"),
    lastViewedAt: timestamp("last_viewed_at"),
    viewCount: integer("view_count").notNull().default(0),
  },
  (t) => [
    uniqueIndex("call_shares_token_hash_uq").on(t.tokenHash),
    index("call_shares_customer_call_created_idx").on(t.customerId, t.callId, t.createdAt),
  ],
);

/** POST /public/leads: not tied to an account. */
export const leads = sqliteTable(
  "leads",
  {
    id: id(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    company: text("company"),
    platform: text("platform"),
    volume: text("volume"),
    message: text("message"),
    /** Portal path the form was sent from. */
    page: text("page"),
    attribution: json<Record<string, unknown>>("attribution"),
    /** The honeypot field: a request that fills it in is a bot's, answered as accepted and not stored, so this stays null. */
    website: text("website"),
    /** HMAC of the source address (never the address itself), for abuse review. */
    sourceIpHash: text("source_ip_hash"),
    /** When the service team was mailed; null if mailing failed or was skipped. */
    notifiedAt: timestamp("notified_at"),
    createdAt: createdAt(),
  },
  (t) => [index("leads_created_idx").on(t.createdAt), index("leads_source_ip_created_idx").on(t.sourceIpHash, t.createdAt)],
);
