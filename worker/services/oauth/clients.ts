// OAuth clients: registered by RFC 7591 (POST /oauth/register, anonymous, a public client or
// one with a secret shown once), or identified by a Client ID Metadata Document (the client_id
// is an https URL; the document found there is fetched at an authorization when we hold no
// fresh copy, and its copy kept in oauth_clients with an expiry, which is also what the token
// endpoint reads). Where a client may be sent back to.
import { eq } from "drizzle-orm";
import { oauthClients } from "../../../schema/oauth.ts";
import { isOAuthScope } from "../../resources/oauth.ts";
import { clientMetadataSource } from "../../providers/client-metadata/client-metadata.ts";
import { randomToken, sha256Hex, timingSafeEqual } from "../../lib/crypto.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { OAuthError } from "./errors.ts";
import { checkDeliveryUrl } from "../outbound-guard.ts";
import { sourceKey } from "../identity/sign-in-throttle.ts";

export type AuthMethod = "none" | "client_secret_basic" | "client_secret_post";
export const AUTH_METHODS: AuthMethod[] = ["none", "client_secret_basic", "client_secret_post"];
export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

export type OAuthClient = {
  clientId: string;
  clientName: string | null;
  redirectUris: string[];
  authMethod: AuthMethod;
  grantTypes: string[];
  /** The scopes the client may ask for; null: any supported scope. */
  scope: string | null;
  secretHash: string | null;
};

/** RFC 7591 client metadata, as the register endpoint validated it. */
export type ClientMetadata = {
  redirect_uris: string[];
  client_name?: string | undefined;
  token_endpoint_auth_method?: AuthMethod | undefined;
  grant_types?: string[] | undefined;
  response_types?: string[] | undefined;
  scope?: string | undefined;
};

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A client_id that names a metadata document: an https URL with a path, no fragment, no credentials. */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!clientId.startsWith("https://")) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== "/" && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

/**
 * Where a client may receive codes: https anywhere, http only on a loopback address (a native
 * app's local listener, RFC 8252 section 7.3), or an app's private-use scheme in reverse-domain
 * form (com.example.app:/callback); never a fragment.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URI`;
  }
  if (url.hash) return `${uri} has a fragment`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname) ? null : `${uri}: http is allowed only on a loopback address`;
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return null;
  return `${uri}: the scheme ${url.protocol} is not allowed`;
}

/** Exact match, except that a loopback redirect may use any port (RFC 8252 section 7.3). */
export function redirectRegistered(client: Pick<OAuthClient, "redirectUris">, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  let asked: URL;
  try {
    asked = new URL(uri);
  } catch {
    return false;
  }
  if (asked.protocol !== "http:" || !LOOPBACK_HOSTS.has(asked.hostname)) return false;
  return client.redirectUris.some((registered) => {
    const url = new URL(registered);
    url.port = asked.port;
    return url.href === asked.href;
  });
}

function checkMetadata(input: ClientMetadata): { authMethod: AuthMethod; grantTypes: string[] } {
  if (input.redirect_uris.length === 0) throw new OAuthError("invalid_redirect_uri", "redirect_uris must name at least one URI");
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", problem);
  }
  const grantTypes = input.grant_types ?? ["authorization_code"];
  const unsupported = grantTypes.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unsupported)
    throw new OAuthError("invalid_client_metadata", `grant_types: ${unsupported} is not supported (authorization_code, refresh_token)`);
  if (!grantTypes.includes("authorization_code"))
    throw new OAuthError("invalid_client_metadata", "grant_types must include authorization_code");
  if (input.response_types && input.response_types.some((r) => r !== "code")) {
    throw new OAuthError("invalid_client_metadata", "response_types: only code is supported");
  }
  const unknownScope = (input.scope ?? "").split(" ").find((s) => s && !isOAuthScope(s));
  if (unknownScope) throw new OAuthError("invalid_client_metadata", `scope: ${unknownScope} is not a scope of this server`);
  return { authMethod: input.token_endpoint_auth_method ?? "client_secret_basic", grantTypes };
}

/** RFC 7591 registration; the secret (confidential clients only) is returned once and kept as a hash. */
export async function registerClient(s: Services, input: ClientMetadata) {
  const { authMethod, grantTypes } = checkMetadata(input);
  const clientId = crypto.randomUUID();
  const secret = authMethod === "none" ? null : randomToken(32);
  const createdAt = nowIso();
  await s.db.insert(oauthClients).values({
    clientId,
    clientSecretHash: secret ? await sha256Hex(secret) : null,
    clientName: input.client_name ?? null,
    redirectUris: input.redirect_uris,
    tokenEndpointAuthMethod: authMethod,
    grantTypes,
    scope: input.scope ?? null,
    createdAt,
  });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.parse(createdAt) / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: input.client_name,
    redirect_uris: input.redirect_uris,
    token_endpoint_auth_method: authMethod,
    grant_types: grantTypes,
    response_types: ["code"],
    ...(input.scope ? { scope: input.scope } : {}),
  };
}

const rowToClient = (row: typeof oauthClients.$inferSelect): OAuthClient => ({
  clientId: row.clientId,
  clientName: row.clientName,
  redirectUris: row.redirectUris,
  authMethod: row.tokenEndpointAuthMethod as AuthMethod,
  grantTypes: row.grantTypes,
  scope: row.scope,
  secretHash: row.clientSecretHash,
});

/** A client as the token and revocation endpoints know it (a metadata document's last fetched copy). */
export async function storedClient(s: Services, clientId: string): Promise<OAuthClient | null> {
  const row = await s.db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).get();
  return row ? rowToClient(row) : null;
}

/** Metadata document fetches per source address (the person's browser, or whoever sends it there) per hour. */
export const METADATA_FETCHES_PER_HOUR = 30;
/** How long a fetched document is believed: its Cache-Control max-age within these bounds, an hour when it says none. */
export const METADATA_TTL_SEC = { min: 300, default: 3600, max: 86_400 } as const;

export type ClientLookup =
  | { ok: true; client: OAuthClient }
  /** unknown: no such registration; document: the metadata document could not be had or does not hold; rate_limited: too many fetches from the source. */
  | { ok: false; reason: "unknown" | "document" | "rate_limited"; retryAfterSec?: number };

/**
 * The client an authorization request names: a registered one, or the metadata document at the
 * client_id URL. A document's copy is used while fresh; once expired (or never seen) it is
 * fetched again: at most METADATA_FETCHES_PER_HOUR per source address, only to a URL whose name
 * resolves to public addresses (the webhooks' check), and kept with its new expiry for the next
 * authorizations and the token endpoint.
 */
export async function clientForAuthorization(s: Services, clientId: string, source: string): Promise<ClientLookup> {
  if (!isMetadataDocumentId(clientId)) {
    const client = await storedClient(s, clientId);
    return client ? { ok: true, client } : { ok: false, reason: "unknown" };
  }
  const now = nowIso();
  const row = await s.db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).get();
  if (row?.metadataExpiresAt && row.metadataExpiresAt > now) return { ok: true, client: rowToClient(row) };

  const verdict = await s.limiter(`oauth-client-metadata-ip:${sourceKey(source)}`).hit(METADATA_FETCHES_PER_HOUR, 3600);
  if (!verdict.allowed) return { ok: false, reason: "rate_limited", retryAfterSec: verdict.retryAfterSec };
  if (!(await checkDeliveryUrl(s, clientId)).ok) return { ok: false, reason: "document" };
  const fetched = await clientMetadataSource().fetch(clientId);
  const client = fetched ? parseMetadataDocument(clientId, fetched.document) : null;
  if (!fetched || !client) return { ok: false, reason: "document" };
  const ttl = Math.min(METADATA_TTL_SEC.max, Math.max(METADATA_TTL_SEC.min, fetched.maxAgeSec ?? METADATA_TTL_SEC.default));
  const values = {
    clientSecretHash: null,
    clientName: client.clientName,
    redirectUris: client.redirectUris,
    tokenEndpointAuthMethod: "none",
    grantTypes: client.grantTypes,
    scope: client.scope,
    metadataExpiresAt: addSeconds(now, ttl),
  };
  await s.db
    .insert(oauthClients)
    .values({ clientId, ...values, createdAt: now })
    .onConflictDoUpdate({ target: oauthClients.clientId, set: values });
  return { ok: true, client };
}

/** A metadata document that holds: its client_id is its own URL, redirect URIs we accept, a public client. */
function parseMetadataDocument(url: string, doc: unknown): OAuthClient | null {
  if (!doc || typeof doc !== "object") return null;
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) return null;
  if (!Array.isArray(d.redirect_uris) || !d.redirect_uris.every((u) => typeof u === "string")) return null;
  const method = d.token_endpoint_auth_method ?? "none";
  if (method !== "none") return null;
  try {
    const { grantTypes } = checkMetadata({
      redirect_uris: d.redirect_uris as string[],
      grant_types: Array.isArray(d.grant_types) ? (d.grant_types as string[]) : ["authorization_code", "refresh_token"],
      response_types: Array.isArray(d.response_types) ? (d.response_types as string[]) : undefined,
      scope: typeof d.scope === "string" ? d.scope : undefined,
    });
    return {
      clientId: url,
      clientName: typeof d.client_name === "string" ? d.client_name.slice(0, 200) : null,
      redirectUris: d.redirect_uris as string[],
      authMethod: "none",
      grantTypes,
      scope: typeof d.scope === "string" ? d.scope : null,
      secretHash: null,
    };
  } catch {
    return null;
  }
}

/** What a token or revocation request carries to say which client sends it (RFC 6749 section 2.3). */
export type ClientCredentials = {
  basic: { id: string; secret: string } | null;
  clientId: string | undefined;
  clientSecret: string | undefined;
};

/** The client a token or revocation request comes from, authenticated as it registered; 401 invalid_client otherwise. */
export async function authenticateClient(s: Services, creds: ClientCredentials): Promise<OAuthClient> {
  const clientId = creds.basic?.id ?? creds.clientId;
  if (!clientId) throw new OAuthError("invalid_client", "client_id is required");
  if (creds.basic && creds.clientId && creds.clientId !== creds.basic.id)
    throw new OAuthError("invalid_client", "two different client ids");
  const client = await storedClient(s, clientId);
  if (!client) throw new OAuthError("invalid_client", "unknown client");
  const secret = creds.basic?.secret ?? creds.clientSecret;
  const method: AuthMethod = creds.basic ? "client_secret_basic" : creds.clientSecret ? "client_secret_post" : "none";
  if (client.authMethod === "none") {
    if (method !== "none") throw new OAuthError("invalid_client", "this client is public: it authenticates with no secret");
    return client;
  }
  if (method === "none" || !secret || !client.secretHash) throw new OAuthError("invalid_client", "client authentication required");
  const presented = new TextEncoder().encode(await sha256Hex(secret));
  if (!timingSafeEqual(presented, new TextEncoder().encode(client.secretHash)))
    throw new OAuthError("invalid_client", "wrong client secret");
  return client;
}
