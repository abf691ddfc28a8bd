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

/** Where a call came from: a customer's SIP trunk, the web dialer, or a test call the platform placed. */
export const CALL_ORIGINS = ["sip", "dialer", "test"] as const;
/** Where a call stands: ringing and active while it is up (LIVE_CALL_STATUSES), then one of the ended three. */
export const CALL_STATUSES = ["ringing", "active", "completed", "failed", "rejected"] as const;
export const LIVE_CALL_STATUSES = ["ringing", "active"] as const;
export const ENDED_CALL_STATUSES = ["completed", "failed", "rejected"] as const;
/** What a verdict recommends for the caller. */
export const RECOMMENDATIONS = ["block", "review", "allow"] as const;

export type CallOrigin = (typeof CALL_ORIGINS)[number];
export type CallStatus = (typeof CALL_STATUSES)[number];
export type LiveCallStatus = (typeof LIVE_CALL_STATUSES)[number];
export type Recommendation = (typeof RECOMMENDATIONS)[number];

/** Is a call with this status up (ringing or active)? */
export const isLiveCallStatus = (status: string): status is LiveCallStatus => (LIVE_CALL_STATUSES as readonly string[]).includes(status);

/** Where an investigation stands; any of the four may follow any other. */
export const CASE_STATUSES = ["open", "in_review", "resolved", "dismissed"] as const;
export const CASE_SEVERITIES = ["low", "medium", "high", "critical"] as const;
/** user: written by a user of the account; system: a change the service recorded (status, assignee). */
export const CASE_COMMENT_AUTHORS = ["user", "system"] as const;
/** analysis: a dispute of a call's verdict. */
export const TICKET_KINDS = ["question", "bug", "feature", "analysis", "billing"] as const;
/** answered is set only by a reply of the service team. */
export const TICKET_STATUSES = ["open", "answered", "closed"] as const;
/** customer: a user of the account; support: the service team. */
export const TICKET_MESSAGE_AUTHORS = ["customer", "support"] as const;

export type CaseStatus = (typeof CASE_STATUSES)[number];
export type CaseSeverity = (typeof CASE_SEVERITIES)[number];
export type TicketKind = (typeof TICKET_KINDS)[number];
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** Proof of control of a whitelist entry's range (issue 20, finding 4). */
export const WHITELIST_PROOFS = ["none", "proven", "approved"] as const;
/** A whitelist entry beside other accounts' claims: first, second (waits for proof), displaced. */
export const WHITELIST_STANDINGS = ["first", "second", "displaced"] as const;
