// The closed sets of values stored in text columns. The tables type their columns with them and
// the API's zod schemas (worker/resources/) build their enums from them, so a response can never
// promise less than the database holds, and the OpenAPI document lists every value.

/** SIP transports toward a destination. */
export const TRANSPORTS = ["udp", "tcp", "tls"] as const;
/** sip: a SIP endpoint; voice_ai: a voice-AI agent. */
export const DESTINATION_KINDS = ["sip", "voice_ai"] as const;
/** full (record and analyse), record_only, relay_only (nothing recorded). */
export const PROCESSING_POLICIES = ["full", "record_only", "relay_only"] as const;
/** What a sampled-out call gets. */
export const SAMPLE_MODES = ["analyse", "record"] as const;
/** platform: the platform bridges transfers; refer: a SIP REFER is passed on. */
export const TRANSFER_MODES = ["platform", "refer"] as const;
/** What the last OPTIONS checks said of a destination. */
export const MONITOR_STATUSES = ["up", "down", "unknown"] as const;

export type Transport = (typeof TRANSPORTS)[number];
