import type { Transport } from "../../schema/enums.ts";

// The voice-AI providers a `voice_ai` destination can point at, with what we send their SIP
// ingress by default. Served as-is by GET /customer/voice-providers; a destination's
// `provider` must be one of these keys. Host, port and transport are defaults only: a
// destination may name a regional host (e.g. sip.eu.vapi.ai) or another transport.
//
// `challenges_invite`: the provider can answer our INVITE with a digest challenge (401/407)
// for the agent's number, and we recommend turning that on, because the platform's SIP
// egress addresses are shared by every account and an IP allow-list alone would let any of
// them reach the agent. A destination of such a provider without a stored `auth_password`
// reports `needs_credential`.
// `sends_webhooks`: the provider calls back (call started/ended, analysis) and signs the
// callbacks; without a stored `webhook_secret` the destination reports `needs_webhook`.

export type AgentIdKind = "phone_number" | "sip_username" | "project_id";

export type VoiceProvider = {
  key: string;
  name: string;
  default_host: string;
  default_port: number;
  default_transport: Transport;
  /** Every transport the provider's SIP ingress accepts. */
  transports: Transport[];
  /** Port for TLS when it differs from default_port. */
  tls_port: number | null;
  /** Audio codecs offered in SDP, preferred first. */
  codecs: string[];
  /** What `agent_id` holds for this provider: the user part of the Request-URI we send. */
  agent_id_kind: AgentIdKind;
  agent_id_label: string;
  challenges_invite: boolean;
  sends_webhooks: boolean;
  /** How the provider signs its callbacks, so the customer knows which secret to paste. */
  webhook_signature: string | null;
  docs_url: string;
};

export const VOICE_PROVIDERS = [
  {
    key: "elevenlabs",
    name: "ElevenLabs Agents",
    default_host: "sip.rtc.elevenlabs.io",
    default_port: 5060,
    default_transport: "tcp",
    transports: ["tcp", "tls"],
    tls_port: 5061,
    codecs: ["PCMU", "PCMA", "G722"],
    agent_id_kind: "phone_number",
    agent_id_label: "Phone number imported into ElevenLabs and assigned to the agent (E.164)",
    challenges_invite: true,
    sends_webhooks: true,
    webhook_signature: "HMAC-SHA256 in the ElevenLabs-Signature header (post-call webhook secret)",
    docs_url: "https://elevenlabs.io/docs/agents-platform/phone-numbers/sip-trunking",
  },
  {
    key: "retell",
    name: "Retell AI",
    default_host: "sip.retellai.com",
    default_port: 5060,
    default_transport: "tcp",
    transports: ["udp", "tcp", "tls"],
    tls_port: null,
    codecs: ["PCMU", "PCMA", "G722"],
    agent_id_kind: "phone_number",
    agent_id_label: "Phone number imported into Retell and bound to the agent (E.164)",
    challenges_invite: false,
    sends_webhooks: true,
    webhook_signature: "x-retell-signature, keyed with the Retell API key (paste that key as the webhook secret)",
    docs_url: "https://docs.retellai.com/deploy/custom-telephony",
  },
  {
    key: "vapi",
    name: "Vapi",
    default_host: "sip.vapi.ai",
    default_port: 5060,
    default_transport: "udp",
    transports: ["udp", "tcp"],
    tls_port: null,
    codecs: ["PCMU", "PCMA"],
    agent_id_kind: "sip_username",
    agent_id_label: "Username of the Vapi SIP number (sip:<username>@sip.vapi.ai) linked to the assistant",
    challenges_invite: true,
    sends_webhooks: true,
    webhook_signature: "X-Vapi-Secret header carrying the server URL secret",
    docs_url: "https://docs.vapi.ai/advanced/sip",
  },
  {
    key: "bland",
    name: "Bland AI",
    default_host: "us2.sip.bland.ai",
    default_port: 5061,
    default_transport: "tls",
    transports: ["tls"],
    tls_port: 5061,
    codecs: ["PCMU", "PCMA"],
    agent_id_kind: "phone_number",
    agent_id_label: "Number attached to the Bland SIP trunk and its inbound agent (E.164)",
    challenges_invite: false,
    sends_webhooks: true,
    webhook_signature: "HMAC-SHA256 signature with the organisation's webhook signing secret",
    docs_url: "https://docs.bland.ai/agents/sip-network",
  },
  {
    key: "synthflow",
    name: "Synthflow",
    default_host: "sip.synthflow.ai",
    default_port: 32681,
    default_transport: "udp",
    transports: ["udp", "tcp", "tls"],
    tls_port: 32682,
    codecs: ["PCMU", "PCMA", "opus"],
    agent_id_kind: "phone_number",
    agent_id_label: "Custom number imported into Synthflow and assigned to an inbound agent (E.164)",
    challenges_invite: false,
    sends_webhooks: true,
    webhook_signature: "Post-call webhook; paste the workspace's webhook secret",
    docs_url: "https://docs.synthflow.ai/connect-over-sip",
  },
  {
    key: "openai_realtime",
    name: "OpenAI Realtime (SIP)",
    default_host: "sip.api.openai.com",
    default_port: 5061,
    default_transport: "tls",
    transports: ["tls"],
    tls_port: 5061,
    codecs: ["PCMU", "PCMA"],
    agent_id_kind: "project_id",
    agent_id_label: "OpenAI project id (proj_…), the user part of sip:<project id>@sip.api.openai.com",
    challenges_invite: false,
    sends_webhooks: true,
    webhook_signature: "Standard Webhooks (webhook-signature header) with the project's whsec_ signing secret",
    docs_url: "https://platform.openai.com/docs/guides/realtime-sip",
  },
] as const satisfies readonly VoiceProvider[];

export type ProviderKey = (typeof VOICE_PROVIDERS)[number]["key"];

export const PROVIDER_KEYS = VOICE_PROVIDERS.map((p) => p.key) as [ProviderKey, ...ProviderKey[]];

const BY_KEY = new Map<string, VoiceProvider>(VOICE_PROVIDERS.map((p) => [p.key, p]));

/** The catalogue entry for a key, or undefined for anything else (including null). */
export const voiceProvider = (key: string | null | undefined): VoiceProvider | undefined => (key ? BY_KEY.get(key) : undefined);

export const listVoiceProviders = (): VoiceProvider[] =>
  VOICE_PROVIDERS.map((p) => ({ ...p, transports: [...p.transports], codecs: [...p.codecs] }));
