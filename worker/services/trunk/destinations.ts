// Destinations: where admitted calls go, a SIP endpoint or a voice-AI agent. Credentials,
// webhook secrets and provider keys are write-only: sealed with AES-GCM bound to their row and
// field, never returned (only has_* / needs_* booleans). A voice_ai destination has an inbound
// webhook URL built from a random token kept as a SHA-256 hash (looked up on each callback)
// plus an encrypted copy (so the URL can be shown again).
import { and, count, eq, ne } from "drizzle-orm";
import { destinations, routingRules, whitelistIps } from "../../../schema/network.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { runBatch } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { decryptSecret, destinationSecretContext, encryptSecret, type DestinationSecret } from "../../lib/secrets.ts";
import { nowIso } from "../../lib/time.ts";
import {
  DEFAULT_PORT,
  DEFAULT_TRANSPORT,
  MAX_DESTINATIONS,
  normalizeHost,
  type CreateDestinationInput,
  type UpdateDestinationInput,
} from "../../resources/destinations.ts";
import { syncAdmissionState } from "./admission-state.ts";
import type { Services } from "../context.ts";
import { Conflict, InvalidField } from "../errors.ts";
import { owned, ownedRow, ownedRowsNewestFirst } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";
import { voiceProvider, type VoiceProvider } from "../../resources/voice-providers.ts";

export type DestinationRow = typeof destinations.$inferSelect;

export const WEBHOOK_PATH = "/api/webhooks/voice/";

const seal = (s: Services, id: string, field: DestinationSecret, value: string) =>
  encryptSecret(s.config.ENCRYPTION_KEY, value, destinationSecretContext(id, field));

async function webhookUrl(s: Services, row: DestinationRow): Promise<string | null> {
  if (row.kind !== "voice_ai" || !row.webhookTokenEnc) return null;
  const token = await decryptSecret(s.config.ENCRYPTION_KEY, row.webhookTokenEnc, destinationSecretContext(row.id, "webhook_token"));
  return token ? `${s.origin}${WEBHOOK_PATH}${token}` : null;
}

export async function destinationOut(s: Services, row: DestinationRow) {
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
    webhook_url: await webhookUrl(s, row),
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

export async function listDestinations(s: Services, principal: Principal) {
  const rows = await ownedRowsNewestFirst(s.db, destinations, principal.customer.id);
  return Promise.all(rows.map((row) => destinationOut(s, row)));
}

/** The account's destination, or NotFound("Destination not found") (also for another account's). */
export const destinationOfAccount = ({ db }: Services, customerId: string, destinationId: string) =>
  ownedRow(db, destinations, customerId, destinationId, "Destination");

/** For records that point at a destination: it must be the account's own. */
export async function requireOwnDestination(s: Services, customerId: string, destinationId: string): Promise<void> {
  await destinationOfAccount(s, customerId, destinationId);
}

const hostOf = (value: string) => normalizeHost(value)!; // the schema has already refused anything else

/** A new inbound webhook token: its hash for lookups, its sealed copy for showing the URL again. */
async function newWebhookToken(s: Services, id: string) {
  const token = randomToken(32);
  return { webhookTokenHash: await sha256Hex(token), webhookTokenEnc: await seal(s, id, "webhook_token", token) };
}

/** kind and provider must agree: voice_ai needs a catalogue provider, sip takes none. */
function providerFor(kind: string, provider: string | null): VoiceProvider | undefined {
  if (kind !== "voice_ai") return undefined;
  const entry = voiceProvider(provider);
  if (!entry) throw new InvalidField("provider", "provider is required for voice_ai destinations", "missing");
  return entry;
}

function refuseProviderOnSip(kind: string, provider: string | null | undefined) {
  if (kind === "sip" && provider) {
    throw new InvalidField("provider", "provider applies only to voice_ai destinations");
  }
}

/** Clears the is_default flag of every other destination of the account (same batch as the write). */
const clearOtherDefaults = ({ db }: Services, principal: Principal, keepId: string) =>
  db
    .update(destinations)
    .set({ isDefault: false, updatedAt: nowIso() })
    .where(and(eq(destinations.customerId, principal.customer.id), eq(destinations.isDefault, true), ne(destinations.id, keepId)));

export async function createDestination(s: Services, principal: Principal, input: CreateDestinationInput) {
  const { db } = s;
  const kind = input.kind;
  refuseProviderOnSip(kind, input.provider);
  const provider = providerFor(kind, input.provider ?? null);
  const host = input.host !== undefined ? hostOf(input.host) : provider?.default_host;
  if (!host) throw new InvalidField("host", "Field required", "missing");

  const existing = await db.select({ n: count() }).from(destinations).where(eq(destinations.customerId, principal.customer.id)).get();
  if ((existing?.n ?? 0) >= MAX_DESTINATIONS) throw new Conflict("Maximum number of destinations reached");

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
    authPasswordEnc: input.auth_password ? await seal(s, id, "auth_password", input.auth_password) : null,
    authRealm: input.auth_realm ?? null,
    webhookSecretEnc: input.webhook_secret ? await seal(s, id, "webhook_secret", input.webhook_secret) : null,
    providerApiKeyEnc: input.provider_api_key ? await seal(s, id, "provider_api_key", input.provider_api_key) : null,
    webhookTokenHash: null,
    webhookTokenEnc: null,
    ...(kind === "voice_ai" ? await newWebhookToken(s, id) : {}),
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
  await runBatch(db, row.isDefault ? [clearOtherDefaults(s, principal, id), insert] : [insert]);
  await syncAdmissionState(s, principal.customer.id);
  return destinationOut(s, row);
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
      throw new InvalidField(flag, `${flag} cannot be combined with a new value in the same request`);
    }
  }
}

export async function updateDestination(s: Services, principal: Principal, destinationId: string, input: UpdateDestinationInput) {
  const { db } = s;
  const row = await destinationOfAccount(s, principal.customer.id, destinationId);
  refuseSetAndClear(input);

  const kind = input.kind ?? row.kind;
  refuseProviderOnSip(kind, input.provider);
  const provider = providerFor(kind, input.provider !== undefined ? input.provider : row.provider);
  // A new provider (or a destination becoming voice_ai) brings its own host, port and transport
  // unless the request names them; otherwise what is stored stays.
  const switched = provider !== undefined && (row.kind !== "voice_ai" || row.provider !== provider.key);
  if (input.rotate_webhook_token && kind !== "voice_ai") {
    throw new InvalidField("rotate_webhook_token", "only voice_ai destinations have a webhook URL");
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
  if (input.auth_password) patch.authPasswordEnc = await seal(s, row.id, "auth_password", input.auth_password);
  if (input.clear_webhook_secret) patch.webhookSecretEnc = null;
  if (input.webhook_secret) patch.webhookSecretEnc = await seal(s, row.id, "webhook_secret", input.webhook_secret);
  if (input.clear_provider_key) patch.providerApiKeyEnc = null;
  if (input.provider_api_key) patch.providerApiKeyEnc = await seal(s, row.id, "provider_api_key", input.provider_api_key);

  // The inbound URL exists only for voice_ai: issued when a destination becomes one, replaced
  // on rotation, dropped when it becomes sip (callbacks to the old URL then find nothing).
  if (kind !== "voice_ai") Object.assign(patch, { webhookTokenHash: null, webhookTokenEnc: null });
  else if (input.rotate_webhook_token || !row.webhookTokenEnc) Object.assign(patch, await newWebhookToken(s, row.id));

  const update = db
    .update(destinations)
    .set(patch)
    .where(owned(destinations, principal.customer.id, row.id));
  await runBatch(db, patch.isDefault ? [clearOtherDefaults(s, principal, row.id), update] : [update]);
  await syncAdmissionState(s, principal.customer.id);
  return destinationOut(s, { ...row, ...patch });
}

/**
 * Deletes the destination and, in the same batch, unhooks what pointed at it: the account's
 * whitelist entries fall back to routing (destination_id null) and its routing rules to it go.
 */
export async function deleteDestination(s: Services, principal: Principal, destinationId: string): Promise<void> {
  const { db } = s;
  const customerId = principal.customer.id;
  const row = await destinationOfAccount(s, customerId, destinationId);
  await runBatch(db, [
    db
      .update(whitelistIps)
      .set({ destinationId: null, updatedAt: nowIso() })
      .where(and(eq(whitelistIps.customerId, customerId), eq(whitelistIps.destinationId, row.id))),
    db.delete(routingRules).where(and(eq(routingRules.customerId, customerId), eq(routingRules.destinationId, row.id))),
    db.delete(destinations).where(owned(destinations, customerId, row.id)),
  ]);
  await syncAdmissionState(s, principal.customer.id);
}
