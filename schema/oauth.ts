// OAuth 2.1 for MCP clients (dynamic registration, PKCE codes, grants; their refresh tokens live in
// each grant's OAuthGrant Durable Object) and web-dialer tokens.
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, customerId, id, json, timestamp } from "./columns.ts";

/**
 * RFC 7591 registrations. Anonymous, so not tied to an account until a user grants consent. Also
 * the last fetched copy of each Client ID Metadata Document (client_id an https URL).
 */
export const oauthClients = sqliteTable("oauth_clients", {
  clientId: text("client_id").primaryKey(),
  /** null for public clients (token_endpoint_auth_method none). */
  clientSecretHash: text("client_secret_hash"),
  clientName: text("client_name"),
  redirectUris: json<string[]>("redirect_uris").notNull(),
  /** none | client_secret_basic | client_secret_post */
  tokenEndpointAuthMethod: text("token_endpoint_auth_method").notNull().default("none"),
  grantTypes: json<string[]>("grant_types").notNull(),
  scope: text("scope"),
  createdAt: createdAt(),
  /** A metadata document's copy: fetched again at an authorization after this time. Null for registered clients. */
  metadataExpiresAt: timestamp("metadata_expires_at"),
});

/** Authorization codes: single use, short-lived, stored only as hashes. */
export const oauthCodes = sqliteTable(
  "oauth_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    clientId: text("client_id").notNull(),
    customerId: customerId(),
    userId: text("user_id").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    /** Only S256 is accepted. */
    codeChallengeMethod: text("code_challenge_method").notNull().default("S256"),
    scope: text("scope"),
    /** RFC 8707 resource indicator the token will be bound to (the /mcp URL). */
    resource: text("resource"),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    usedAt: timestamp("used_at"),
    /** The grant the code's exchange started (set when it is spent), revoked if the code comes back. */
    grantId: text("grant_id"),
  },
  (t) => [index("oauth_codes_expires_idx").on(t.expiresAt)],
);

/**
 * One row per consent a person gave an agent: the "authorised agents" the portal lists and
 * revokes. The grant's refresh tokens live in its OAuthGrant Durable Object (which serialises
 * rotation and revocation); this row is the read model, revoked_at mirrored from the object.
 */
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    id: id(),
    customerId: customerId(),
    userId: text("user_id").notNull(),
    clientId: text("client_id").notNull(),
    /** The client's name and redirect host as the person saw them on the consent page. */
    clientName: text("client_name"),
    redirectHost: text("redirect_host"),
    /** Space-separated scopes granted. */
    scope: text("scope").notNull(),
    /** RFC 8707 resource the grant's access tokens are bound to (their audience). */
    resource: text("resource").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at"),
    revokedAt: timestamp("revoked_at"),
    /** user | agent (RFC 7009 from the client) | replay (a rotated refresh token came back) | code_replay (its code came back) */
    revokedReason: text("revoked_reason"),
  },
  (t) => [index("oauth_grants_customer_created_idx").on(t.customerId, t.createdAt)],
);

/** Short-lived tokens the web dialer presents on its INVITE instead of a whitelisted address. */
export const dialerSessions = sqliteTable(
  "dialer_sessions",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    customerId: customerId(),
    userId: text("user_id").notNull(),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    /** When a call spent the token (single use): set by the admission that consumed it. */
    usedAt: text("used_at"),
    /** The call the token admitted (or the refusal recorded for it). */
    callId: text("call_id"),
    /** The caller ID the call shows: one of the account's verified numbers, or null (anonymous). */
    callerId: text("caller_id"),
  },
  (t) => [
    uniqueIndex("dialer_sessions_token_hash_uq").on(t.tokenHash),
    index("dialer_sessions_customer_created_idx").on(t.customerId, t.createdAt),
    index("dialer_sessions_expires_idx").on(t.expiresAt),
  ],
);
