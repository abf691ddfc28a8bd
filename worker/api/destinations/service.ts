// Destinations: where admitted calls go, a SIP endpoint or a voice-AI agent. Credentials,
// webhook secrets and provider keys are write-only: sealed with AES-GCM bound to their row and
// field, never returned (only has_* / needs_* booleans). A voice_ai destination has an inbound
// webhook URL built from a random token kept as a SHA-256 hash (looked up on each callback)
// plus an encrypted copy (so the URL can be shown again).
import { and, count, desc, eq, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { destinations, routingRules, whitelistIps } from "../../../schema/network.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import type { Db } from "../../lib/db.ts";
import { conflict, invalidField, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { decryptSecret, encryptSecret } from "../../lib/secrets.ts";
import { nowIso } from "../../lib/time.ts";
import type { Principal } from "../auth/principal.ts";
import {
  DEFAULT_PORT,
  DEFAULT_TRANSPORT,
  MAX_DESTINATIONS,
  normalizeHost,
  type CreateDestinationInput,
  type UpdateDestinationInput,
} from "./schemas.ts";
import { voiceProvider, type VoiceProvider } from "./voice-providers.ts";

export type DestinationRow = typeof destinations.$inferSelect;

/** What a service call needs besides the database: the sealing key and where webhook URLs point. */
export type DestinationDeps = { db: Db; encryptionKey: string; origin: string };

export const WEBHOOK_PATH = "/api/webhooks/voice/";

type SecretField = "auth_password" | "webhook_secret" | "provider_api_key" | "webhook_token";

/** The additional data each sealed value is bound to: a ciphertext moved to another row or field does not open. */
export const secretContext = (destinationId: string, field: SecretField) => `destination:${destinationId}:${field}`;

const seal = (deps: DestinationDeps, id: string, field: SecretField, value: string) =>
  encryptSecret(deps.encryptionKey, value, secretContext(id, field));

async function webhookUrl(deps: DestinationDeps, row: DestinationRow): Promise<string | null> {
  if (row.kind !== "voice_ai" || !row.webhookTokenEnc) return null;
  const token = await decryptSecret(deps.encryptionKey, row.webhookTokenEnc, secretContext(row.id, "webhook_token"));
  return token ? `${deps.origin}${WEBHOOK_PATH}${token}` : null;
}

export async function destinationOut(deps: DestinationDeps, row: DestinationRow) {
  const provider = row.kind === "voice_ai" ? voiceProvider(row.provider) : undefined;
  return {
    id: row.id,
    host: row.host,
    port: row.port,
    transport: row.transport,
    is_default: row.isDefault,
    label: row.label,
    kind: row.kind,
    provider: row.provider,
    agent_id: row.agentId,
    config: row.config ?? null,
    tech_prefix: row.techPrefix,
    has_credential: row.authPasswordEnc !== null,
    needs_credential: Boolean(provider?.challenges_invite) && row.authPasswordEnc === null,
    webhook_url: await webhookUrl(deps, row),
    has_webhook_secret: row.webhookSecretEnc !== null,
    has_provider_key: row.providerApiKeyEnc !== null,
    needs_webhook: Boolean(provider?.sends_webhooks) && row.webhookSecretEnc === null,
    webhook_last_event_at: row.webhookLastEventAt,
    webhook_last_status: row.webhookLastStatus,
    webhook_last_error: row.webhookLastError,
    monitor_enabled: row.monitorEnabled,
    processing: row.processing,
    sample_rate: row.sampleRate,
    sample_mode: row.sampleMode,
    transfer_mode: row.transferMode,
    monitor_supported: row.monitorSupported,
    monitor_status: row.monitorStatus,
    monitor_last_check_at: row.monitorLastCheckAt,
    monitor_last_change_at: row.monitorLastChangeAt,
    monitor_rtt_ms: row.monitorRttMs,
    monitor_last_code: row.monitorLastCode,
    monitor_last_error: row.monitorLastError,
    created_at: row.createdAt,
  };
}

export async function listDestinations(deps: DestinationDeps, principal: Principal) {
  const rows = await deps.db
    .select()
    .from(destinations)
    .where(eq(destinations.customerId, principal.customer.id))
    .orderBy(desc(destinations.createdAt), desc(destinations.id));
  return Promise.all(rows.map((row) => destinationOut(deps, row)));
}

/** The account's destination, or 404 "Destination not found" (also for another account's). */
export async function destinationOfAccount(db: Db, principal: Principal, destinationId: string): Promise<DestinationRow> {
  const row = await db
    .select()
    .from(destinations)
    .where(and(eq(destinations.id, destinationId), eq(destinations.customerId, principal.customer.id)))
    .get();
  if (!row) throw notFound("Destination not found");
  return row;
}

const hostOf = (value: string) => normalizeHost(value)!; // the schema has already refused anything else

/** A new inbound webhook token: its hash for lookups, its sealed copy for showing the URL again. */
async function newWebhookToken(deps: DestinationDeps, id: string) {
  const token = randomToken(32);
  return { webhookTokenHash: await sha256Hex(token), webhookTokenEnc: await seal(deps, id, "webhook_token", token) };
}

/** kind and provider must agree: voice_ai needs a catalogue provider, sip takes none. */
function providerFor(kind: string, provider: string | null): VoiceProvider | undefined {
  if (kind !== "voice_ai") return undefined;
  const entry = voiceProvider(provider);
  if (!entry) throw invalidField(["body", "provider"], "provider is required for voice_ai destinations", "missing");
  return entry;
}

function refuseProviderOnSip(kind: string, provider: string | null | undefined) {
  if (kind === "sip" && provider) {
    throw invalidField(["body", "provider"], "provider applies only to voice_ai destinations");
  }
}

/** Clears the is_default flag of every other destination of the account (same batch as the write). */
const clearOtherDefaults = (db: Db, principal: Principal, keepId: string) =>
  db
    .update(destinations)
    .set({ isDefault: false, updatedAt: nowIso() })
    .where(and(eq(destinations.customerId, principal.customer.id), eq(destinations.isDefault, true), ne(destinations.id, keepId)));

export async function createDestination(deps: DestinationDeps, principal: Principal, input: CreateDestinationInput) {
  const { db } = deps;
  const kind = input.kind;
  refuseProviderOnSip(kind, input.provider);
  const provider = providerFor(kind, input.provider ?? null);
  const host = input.host !== undefined ? hostOf(input.host) : provider?.default_host;
  if (!host) throw invalidField(["body", "host"], "Field required", "missing");

  const existing = await db.select({ n: count() }).from(destinations).where(eq(destinations.customerId, principal.customer.id)).get();
  if ((existing?.n ?? 0) >= MAX_DESTINATIONS) throw conflict("Maximum number of destinations reached");

  const id = newId();
  const now = nowIso();
  const row: DestinationRow = {
    id,
    customerId: principal.customer.id,
    host,
    port: input.port ?? provider?.default_port ?? DEFAULT_PORT,
    transport: input.transport ?? provider?.default_transport ?? DEFAULT_TRANSPORT,
    isDefault: input.is_default,
    label: input.label || null,
    kind,
    provider: provider?.key ?? null,
    agentId: input.agent_id ?? null,
    config: input.config ?? null,
    techPrefix: input.tech_prefix ?? null,
    authUsername: input.auth_username ?? null,
    authPasswordEnc: input.auth_password ? await seal(deps, id, "auth_password", input.auth_password) : null,
    authRealm: input.auth_realm ?? null,
    webhookSecretEnc: input.webhook_secret ? await seal(deps, id, "webhook_secret", input.webhook_secret) : null,
    providerApiKeyEnc: input.provider_api_key ? await seal(deps, id, "provider_api_key", input.provider_api_key) : null,
    webhookTokenHash: null,
    webhookTokenEnc: null,
    ...(kind === "voice_ai" ? await newWebhookToken(deps, id) : {}),
    webhookLastEventAt: null,
    webhookLastStatus: null,
    webhookLastError: null,
    processing: input.processing,
    sampleRate: input.sample_rate,
    sampleMode: input.sample_mode,
    transferMode: input.transfer_mode,
    monitorEnabled: input.monitor_enabled,
    monitorSupported: null,
    monitorStatus: "unknown",
    monitorLastCheckAt: null,
    monitorLastChangeAt: null,
    monitorRttMs: null,
    monitorLastCode: null,
    monitorLastError: null,
    createdAt: now,
    updatedAt: now,
  };
  const insert = db.insert(destinations).values(row);
  if (row.isDefault) await db.batch([clearOtherDefaults(db, principal, id), insert]);
  else await insert;
  return destinationOut(deps, row);
}

/** A set-and-clear of the same secret in one request is ambiguous: refused, naming the switch. */
function refuseSetAndClear(input: UpdateDestinationInput) {
  const pairs = [
    ["clear_credential", [input.auth_username, input.auth_password, input.auth_realm]],
    ["clear_webhook_secret", [input.webhook_secret]],
    ["clear_provider_key", [input.provider_api_key]],
  ] as const;
  for (const [flag, values] of pairs) {
    if (input[flag] && values.some((v) => v !== undefined && v !== null)) {
      throw invalidField(["body", flag], `${flag} cannot be combined with a new value in the same request`);
    }
  }
}

export async function updateDestination(deps: DestinationDeps, principal: Principal, destinationId: string, input: UpdateDestinationInput) {
  const { db } = deps;
  const row = await destinationOfAccount(db, principal, destinationId);
  refuseSetAndClear(input);

  const kind = input.kind ?? row.kind;
  refuseProviderOnSip(kind, input.provider);
  const provider = providerFor(kind, input.provider !== undefined ? input.provider : row.provider);
  // A new provider (or a destination becoming voice_ai) brings its own host, port and transport
  // unless the request names them; otherwise what is stored stays.
  const switched = provider !== undefined && (row.kind !== "voice_ai" || row.provider !== provider.key);
  if (input.rotate_webhook_token && kind !== "voice_ai") {
    throw invalidField(["body", "rotate_webhook_token"], "only voice_ai destinations have a webhook URL");
  }

  const patch: Partial<DestinationRow> = {
    kind,
    provider: provider?.key ?? null,
    host: input.host !== undefined ? hostOf(input.host) : switched ? provider.default_host : row.host,
    port: input.port ?? (switched ? provider.default_port : row.port),
    transport: input.transport ?? (switched ? provider.default_transport : row.transport),
    updatedAt: nowIso(),
  };
  if (input.is_default !== undefined) patch.isDefault = input.is_default;
  if (input.label !== undefined) patch.label = input.label || null;
  if (input.agent_id !== undefined) patch.agentId = input.agent_id;
  if (input.config !== undefined) patch.config = input.config;
  if (input.tech_prefix !== undefined) patch.techPrefix = input.tech_prefix;
  if (input.monitor_enabled !== undefined) patch.monitorEnabled = input.monitor_enabled;
  if (input.processing !== undefined) patch.processing = input.processing;
  if (input.sample_rate !== undefined) patch.sampleRate = input.sample_rate;
  if (input.sample_mode !== undefined) patch.sampleMode = input.sample_mode;
  if (input.transfer_mode !== undefined) patch.transferMode = input.transfer_mode;

  if (input.clear_credential) Object.assign(patch, { authUsername: null, authPasswordEnc: null, authRealm: null });
  if (input.auth_username) patch.authUsername = input.auth_username;
  if (input.auth_realm) patch.authRealm = input.auth_realm;
  if (input.auth_password) patch.authPasswordEnc = await seal(deps, row.id, "auth_password", input.auth_password);
  if (input.clear_webhook_secret) patch.webhookSecretEnc = null;
  if (input.webhook_secret) patch.webhookSecretEnc = await seal(deps, row.id, "webhook_secret", input.webhook_secret);
  if (input.clear_provider_key) patch.providerApiKeyEnc = null;
  if (input.provider_api_key) patch.providerApiKeyEnc = await seal(deps, row.id, "provider_api_key", input.provider_api_key);

  // The inbound URL exists only for voice_ai: issued when a destination becomes one, replaced
  // on rotation, dropped when it becomes sip (callbacks to the old URL then find nothing).
  if (kind !== "voice_ai") Object.assign(patch, { webhookTokenHash: null, webhookTokenEnc: null });
  else if (input.rotate_webhook_token || !row.webhookTokenEnc) Object.assign(patch, await newWebhookToken(deps, row.id));

  const scoped = and(eq(destinations.id, row.id), eq(destinations.customerId, principal.customer.id));
  const update = db.update(destinations).set(patch).where(scoped);
  if (patch.isDefault) await db.batch([clearOtherDefaults(db, principal, row.id), update]);
  else await update;
  return destinationOut(deps, { ...row, ...patch });
}

/**
 * Deletes the destination and, in the same batch, unhooks what pointed at it: the account's
 * whitelist entries fall back to routing (destination_id null) and its routing rules to it go.
 */
export async function deleteDestination(db: Db, principal: Principal, destinationId: string): Promise<void> {
  const row = await destinationOfAccount(db, principal, destinationId);
  const customerId = principal.customer.id;
  const statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] = [
    db
      .update(whitelistIps)
      .set({ destinationId: null, updatedAt: nowIso() })
      .where(and(eq(whitelistIps.customerId, customerId), eq(whitelistIps.destinationId, row.id))),
    db.delete(routingRules).where(and(eq(routingRules.customerId, customerId), eq(routingRules.destinationId, row.id))),
    db.delete(destinations).where(and(eq(destinations.id, row.id), eq(destinations.customerId, customerId))),
  ];
  await db.batch(statements);
}
