import { z } from "@hono/zod-openapi";
import { DESTINATION_KINDS, MONITOR_STATUSES, PROCESSING_POLICIES, SAMPLE_MODES, TRANSFER_MODES, TRANSPORTS } from "../../schema/enums.ts";
import { ipToHex } from "../../schema/cidr.ts";
import { PROVIDER_KEYS } from "./voice-providers.ts";

export const MAX_DESTINATIONS = 50;
export const DEFAULT_PORT = 5060;
export const DEFAULT_TRANSPORT = "udp" as const;
/** Largest `config` document accepted, in characters of its JSON text. */
export const MAX_CONFIG_BYTES = 16_384;

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The host as stored: an IPv4 address, an IPv6 address (brackets dropped) or a DNS name of at
 * least two labels (lower case, one trailing dot dropped); null for anything else.
 */
export function normalizeHost(input: string): string | null {
  let text = input.trim().toLowerCase();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  if (text.includes(":")) return ipToHex(text) ? text : null;
  if (/^[0-9.]+$/.test(text)) return ipToHex(text) ? text : null;
  if (text.endsWith(".")) text = text.slice(0, -1);
  if (text.length === 0 || text.length > 253) return null;
  const labels = text.split(".");
  if (labels.length < 2 || !labels.every((l) => HOST_LABEL.test(l))) return null;
  // A name whose last label is all digits would be an address written wrong, not a name.
  return /^\d+$/.test(labels[labels.length - 1]!) ? null : text;
}

const HostSchema = z
  .string()
  .max(255)
  .refine((v) => normalizeHost(v) !== null, { message: "host must be a hostname or an IP address" })
  .openapi({ description: "DNS name, IPv4 or IPv6 address (no scheme, no port)", example: "sbc.carrier.example" });

const PortSchema = z
  .number()
  .int()
  .min(1)
  .max(65535)
  .openapi({ description: "1-65535; default 5060, or the provider's port for voice_ai", example: 5060 });

const TransportSchema = z
  .enum(TRANSPORTS)
  .openapi({ description: "udp, tcp or tls; default udp, or the provider's transport for voice_ai", example: "udp" });

const KindSchema = z.enum(DESTINATION_KINDS).openapi({ description: "sip: a SIP endpoint; voice_ai: a voice-AI agent", example: "sip" });

const ProviderSchema = z.enum(PROVIDER_KEYS).nullable().openapi({
  description: "Voice-AI provider key (GET /customer/voice-providers); required for voice_ai, none for sip",
  example: "elevenlabs",
});

const LabelSchema = z.string().trim().max(100).nullable().openapi({ example: "Main SBC" });

const AgentIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .nullable()
  .openapi({ description: "The agent's identifier at the provider (see agent_id_label of the provider)", example: "+15550100200" });

const ConfigSchema = z
  .record(z.string(), z.unknown())
  .nullable()
  .refine((v) => v === null || JSON.stringify(v).length <= MAX_CONFIG_BYTES, {
    message: `config must be at most ${MAX_CONFIG_BYTES} characters as JSON`,
  })
  .openapi({
    description: "Free-form settings for the destination (an object, at most 16,384 characters as JSON)",
    example: { language: "en" },
  });

const TechPrefixSchema = z
  .string()
  .regex(/^[0-9*#+]{1,20}$/, "tech_prefix must be 1-20 of the characters 0-9 * # +")
  .nullable()
  .openapi({ description: "Prepended to the dialed number on the way to the destination", example: "7788#" });

const ProcessingSchema = z
  .enum(PROCESSING_POLICIES)
  .openapi({ description: "full (record and analyse), record_only, or relay_only (nothing recorded)", example: "full" });
const SampleRateSchema = z.number().int().min(1).max(2_147_483_647).openapi({ description: "Analyse one call in sample_rate", example: 1 });
const SampleModeSchema = z.enum(SAMPLE_MODES).openapi({ description: "Sampling policy: analyse or record", example: "analyse" });
const TransferModeSchema = z
  .enum(TRANSFER_MODES)
  .openapi({ description: "platform: the platform bridges transfers; refer: a SIP REFER is passed on", example: "platform" });

// Write-only fields. null means "leave as it is"; the clear_* switches remove them.
const secret = (max: number, description: string) =>
  z
    .string()
    .min(1)
    .max(max)
    .nullable()
    .optional()
    .openapi({ description: `${description}; write-only`, writeOnly: true });

const writeOnly = {
  auth_username: z
    .string()
    .trim()
    .min(1)
    .max(128)
    .nullable()
    .optional()
    .openapi({ description: "Digest username the destination challenges for; never returned", writeOnly: true }),
  auth_password: secret(256, "Digest password, stored encrypted"),
  auth_realm: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .nullable()
    .optional()
    .openapi({ description: "Digest realm, when the destination requires a specific one; never returned", writeOnly: true }),
  webhook_secret: secret(1024, "Secret the provider signs its callbacks with, stored encrypted"),
  provider_api_key: secret(1024, "The provider's API key (transfers, agent lookups), stored encrypted"),
};

/** Every writable field, optional and without defaults: what a PATCH may carry. */
const destinationFields = {
  host: HostSchema.optional().openapi({
    description: "DNS name, IPv4 or IPv6 address; required for sip, the provider's host by default for voice_ai",
  }),
  port: PortSchema.optional(),
  transport: TransportSchema.optional(),
  is_default: z.boolean().optional().openapi({ description: "Default destination of the account (only one)" }),
  label: LabelSchema.optional(),
  kind: KindSchema.optional(),
  provider: ProviderSchema.optional(),
  agent_id: AgentIdSchema.optional(),
  config: ConfigSchema.optional(),
  tech_prefix: TechPrefixSchema.optional(),
  monitor_enabled: z.boolean().optional().openapi({ description: "Send SIP OPTIONS to the destination periodically" }),
  processing: ProcessingSchema.optional(),
  sample_rate: SampleRateSchema.optional(),
  sample_mode: SampleModeSchema.optional(),
  transfer_mode: TransferModeSchema.optional(),
  ...writeOnly,
};

export const CreateDestinationSchema = z
  .object({
    ...destinationFields,
    is_default: destinationFields.is_default.default(false),
    kind: KindSchema.default("sip"),
    monitor_enabled: destinationFields.monitor_enabled.default(false),
    processing: ProcessingSchema.default("full"),
    sample_rate: SampleRateSchema.default(1),
    sample_mode: SampleModeSchema.default("analyse"),
    transfer_mode: TransferModeSchema.default("platform"),
  })
  .openapi("CreateDestination");

const flag = (description: string) =>
  z
    .boolean()
    .optional()
    .openapi({ description: `${description} (default false)` });

export const UpdateDestinationSchema = z
  .object({
    ...destinationFields,
    clear_credential: flag("Remove the digest username, password and realm"),
    clear_webhook_secret: flag("Remove the webhook secret"),
    clear_provider_key: flag("Remove the provider API key"),
    rotate_webhook_token: flag("Issue a new inbound webhook URL (voice_ai); the old one stops working"),
  })
  .openapi("UpdateDestination");

const timestamp = () => z.string().nullable().openapi({ format: "date-time" });

export const DestinationSchema = z
  .object({
    id: z.uuid(),
    host: z.string().openapi({ example: "sbc.carrier.example" }),
    port: z.number().int().openapi({ example: 5060 }),
    transport: z.enum(TRANSPORTS).openapi({ example: "udp" }),
    is_default: z.boolean(),
    label: z.string().nullable().openapi({ example: "Main SBC" }),
    kind: z.enum(DESTINATION_KINDS).openapi({ example: "sip" }),
    provider: z.string().nullable().openapi({ example: null }),
    agent_id: z.string().nullable().openapi({ example: null }),
    config: z.record(z.string(), z.unknown()).nullable(),
    tech_prefix: z.string().nullable().openapi({ example: null }),
    has_credential: z.boolean().openapi({ description: "A digest password is stored" }),
    needs_credential: z.boolean().openapi({ description: "The provider challenges the INVITE and no digest password is stored" }),
    webhook_url: z.string().nullable().optional().openapi({
      description: "Where the provider sends its callbacks (voice_ai only)",
      example: "https://shield.example/api/webhooks/voice/3q2-…",
    }),
    has_webhook_secret: z.boolean(),
    has_provider_key: z.boolean(),
    needs_webhook: z.boolean().openapi({ description: "The provider sends webhooks and no webhook secret is stored" }),
    webhook_last_event_at: timestamp().optional(),
    webhook_last_status: z.string().nullable().optional(),
    webhook_last_error: z.string().nullable().optional(),
    monitor_enabled: z.boolean(),
    processing: z.enum(PROCESSING_POLICIES).openapi({ example: "full" }),
    sample_rate: z.number().int().openapi({ example: 1 }),
    sample_mode: z.enum(SAMPLE_MODES).openapi({ example: "analyse" }),
    transfer_mode: z.enum(TRANSFER_MODES).openapi({ example: "platform" }),
    monitor_supported: z.boolean().nullable().optional(),
    monitor_status: z.enum(MONITOR_STATUSES).openapi({ example: "unknown" }),
    monitor_last_check_at: timestamp().optional(),
    monitor_last_change_at: timestamp().optional(),
    monitor_rtt_ms: z.number().int().nullable().optional(),
    monitor_last_code: z.number().int().nullable().optional(),
    monitor_last_error: z.string().nullable().optional(),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Destination");

export const VoiceProviderSchema = z
  .object({
    key: z.string().openapi({ description: "Value for a destination's provider", example: "elevenlabs" }),
    name: z.string().openapi({ example: "ElevenLabs Agents" }),
    default_host: z.string().openapi({ example: "sip.rtc.elevenlabs.io" }),
    default_port: z.number().int().openapi({ example: 5060 }),
    default_transport: z.enum(TRANSPORTS).openapi({ example: "tcp" }),
    transports: z.array(z.enum(TRANSPORTS)).openapi({ example: ["tcp", "tls"] }),
    tls_port: z.number().int().nullable().openapi({ example: 5061 }),
    codecs: z.array(z.string()).openapi({ example: ["PCMU", "PCMA", "G722"] }),
    agent_id_kind: z.string().openapi({ description: "phone_number, sip_username or project_id", example: "phone_number" }),
    agent_id_label: z.string().openapi({ description: "What to put in a destination's agent_id" }),
    challenges_invite: z
      .boolean()
      .openapi({ description: "The agent answers the INVITE with a digest challenge: store auth_username and auth_password" }),
    sends_webhooks: z.boolean().openapi({ description: "The provider calls back; store its signing secret as webhook_secret" }),
    webhook_signature: z.string().nullable(),
    docs_url: z.string().openapi({ example: "https://elevenlabs.io/docs/agents-platform/phone-numbers/sip-trunking" }),
  })
  .openapi("VoiceProvider");

export const DestIdParam = z.object({ dest_id: z.uuid().openapi({ param: { name: "dest_id", in: "path" } }) });

export type CreateDestinationInput = z.infer<typeof CreateDestinationSchema>;
export type UpdateDestinationInput = z.infer<typeof UpdateDestinationSchema>;
