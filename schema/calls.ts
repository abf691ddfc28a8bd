// Calls, their SIP ladder, transcripts and AI verdicts, and the analysis queue's bookkeeping.
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, createdAt, customerId, id, json, micros, timestamp, updatedAt } from "./columns.ts";
import { CALL_ORIGINS, CALL_STATUSES } from "./enums.ts";

export type DtmfEvent = {
  t: number;
  digit: string;
  channel: string;
  ms?: number | null;
  source?: string | null;
};

export type TranscriptSegment = Record<string, unknown>;

/**
 * One row per call attempt, written by the Worker from sip-node events (the node never touches D1).
 * The verdict summary (probability, category, recommendation, has_route_alert) is copied here from
 * the current analysis so that list filters and sorts need no join.
 */
export const calls = sqliteTable(
  "calls",
  {
    id: id(),
    customerId: customerId(),
    sipCallId: text("sip_call_id").notNull(),
    origin: text("origin", { enum: CALL_ORIGINS }).notNull().default("sip"),
    direction: text("direction").notNull().default("inbound"),
    status: text("status", { enum: CALL_STATUSES }).notNull(),
    srcIp: text("src_ip").notNull(),
    ani: text("ani"),
    dialed: text("dialed"),
    /** ISO 3166 alpha-2 of the dialed number, when known. */
    destCountry: text("dest_country"),
    // Empty host and port 0 for a call rejected before a destination was chosen.
    destHost: text("dest_host").notNull().default(""),
    destPort: integer("dest_port").notNull().default(0),
    destTransport: text("dest_transport").notNull().default("udp"),
    destKind: text("dest_kind").notNull().default("sip"),
    destTechPrefix: text("dest_tech_prefix"),
    destProvider: text("dest_provider"),
    mediaIp: text("media_ip"),
    externalId: text("external_id"),
    externalName: text("external_name"),
    subCustomer: text("sub_customer"),
    dialPrefix: text("dial_prefix"),
    routedDestinationId: text("routed_destination_id"),
    /** Label at routing time, kept even if the destination is later renamed or deleted. */
    routedDestinationLabel: text("routed_destination_label"),
    routePrefix: text("route_prefix"),
    agentSeconds: integer("agent_seconds"),
    /** Per-minute agent rate charged, micro-dollars. */
    agentRateAppliedMicros: integer("agent_rate_applied_micros"),
    /** AI tier in force when the call started; the analysis uses it even if the account changes tier. */
    aiMode: text("ai_mode"),
    /** Sip-node that carried the call, and the media relay address it used (for /inspect and control). */
    nodeId: text("node_id"),
    mediaNode: text("media_node"),
    /** Duration cap from the admission ticket (plan and credit). */
    maxCallSeconds: integer("max_call_seconds"),
    mos: real("mos"),
    /** STIR/SHAKEN as the node read it: A, B or C; verified, failed or absent, and why it failed (schema/screening.ts). */
    attestation: text("attestation"),
    identityStatus: text("identity_status"),
    identityReason: text("identity_reason"),
    /** The screening result at admission (ScreeningResult: identity facts, rule flags, the action taken). */
    screening: json<Record<string, unknown>>("screening"),
    jitterMs: real("jitter_ms"),
    packetLossPct: real("packet_loss_pct"),
    qos: json<Record<string, unknown>>("qos"),
    codec: text("codec"),
    pddMs: integer("pdd_ms"),
    answerDelayMs: integer("answer_delay_ms"),
    earlyMedia: bool("early_media"),
    hangupBy: text("hangup_by"),
    q850Cause: integer("q850_cause"),
    q850Text: text("q850_text"),
    sipCode: integer("sip_code"),
    endReason: text("end_reason"),
    startedAt: text("started_at").notNull(),
    answeredAt: timestamp("answered_at"),
    endedAt: timestamp("ended_at"),
    durationSec: integer("duration_sec"),
    billsec: integer("billsec"),
    /** Call charge as settled by the AccountLedger (the analysis fee is a separate ledger entry). */
    chargedMicros: micros("charged_micros"),
    /** Per-minute rate applied, micro-dollars. */
    rateAppliedMicros: integer("rate_applied_micros"),
    /** R2 keys. */
    recordingWavPath: text("recording_wav_path"),
    recordingAvailable: bool("recording_available").notNull().default(false),
    recordingPcapPaths: json<string[]>("recording_pcap_paths"),
    capturedHeaders: json<Record<string, unknown>>("captured_headers"),
    dtmf: json<DtmfEvent[]>("dtmf"),
    transcriptStatus: text("transcript_status").notNull(),
    analysisStatus: text("analysis_status").notNull(),
    processing: text("processing").notNull().default("full"),
    sampled: bool("sampled").notNull().default(true),
    processingError: text("processing_error"),
    transcriptSummary: text("transcript_summary"),
    transferTarget: text("transfer_target"),
    transferStatus: text("transfer_status"),
    transferCode: integer("transfer_code"),
    transferAt: timestamp("transfer_at"),
    transferMode: text("transfer_mode"),
    transferCallId: text("transfer_call_id"),
    // Current verdict (the most recent analysis), denormalised.
    analysisId: text("analysis_id"),
    probability: integer("probability"),
    category: text("category"),
    recommendation: text("recommendation"),
    hasRouteAlert: bool("has_route_alert").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("calls_customer_started_idx").on(t.customerId, t.startedAt),
    index("calls_customer_status_started_idx").on(t.customerId, t.status, t.startedAt),
    index("calls_customer_analysis_status_started_idx").on(t.customerId, t.analysisStatus, t.startedAt),
    index("calls_customer_origin_started_idx").on(t.customerId, t.origin, t.startedAt),
    index("calls_customer_sampled_started_idx").on(t.customerId, t.sampled, t.startedAt),
    index("calls_customer_destination_started_idx").on(t.customerId, t.routedDestinationId, t.startedAt),
    index("calls_customer_sub_customer_started_idx").on(t.customerId, t.subCustomer, t.startedAt),
    index("calls_customer_category_started_idx").on(t.customerId, t.category, t.startedAt),
    index("calls_customer_recommendation_started_idx").on(t.customerId, t.recommendation, t.startedAt),
    // min_probability filter and sort by risk.
    index("calls_customer_probability_started_idx").on(t.customerId, t.probability, t.startedAt),
    index("calls_customer_route_alert_started_idx").on(t.customerId, t.hasRouteAlert, t.startedAt),
    index("calls_customer_identity_status_started_idx").on(t.customerId, t.identityStatus, t.startedAt),
    index("calls_customer_attestation_started_idx").on(t.customerId, t.attestation, t.startedAt),
    // Exact lookups that still list newest first without a sort (GET /calls?external_id= and ?sip_call_id=).
    index("calls_customer_external_id_started_idx").on(t.customerId, t.externalId, t.startedAt),
    index("calls_customer_sip_call_id_started_idx").on(t.customerId, t.sipCallId, t.startedAt),
    // GET /calls?sort=-duration_sec.
    index("calls_customer_duration_started_idx").on(t.customerId, t.durationSec, t.startedAt),
    // Calls from one number (controlled numbers, case prefill, `q` on an exact ANI).
    index("calls_customer_ani_started_idx").on(t.customerId, t.ani, t.startedAt),
    // A reconnecting sip-node reconciles the calls it was carrying, across accounts.
    index("calls_node_status_idx").on(t.nodeId, t.status),
  ],
);

/** The SIP ladder of a call, one row per message, in the order the node saw them. */
export const callSipMessages = sqliteTable(
  "call_sip_messages",
  {
    customerId: customerId(),
    callId: text("call_id").notNull(),
    seq: integer("seq").notNull(),
    timeStamp: text("time_stamp").notNull(),
    /** in | out, relative to the sip-node. */
    direction: text("direction").notNull(),
    method: text("method").notNull(),
    /** Status code and reason of a response, null for a request. */
    status: text("status"),
    fromIp: text("from_ip").notNull(),
    toIp: text("to_ip").notNull(),
    fromTag: text("from_tag"),
    toTag: text("to_tag"),
    firstLine: text("first_line").notNull(),
    headers: json<Record<string, unknown>>("headers"),
    /** The whole message as seen on the wire, when the node sent it (feeds the plain-text log). */
    raw: text("raw"),
  },
  (t) => [primaryKey({ columns: [t.callId, t.seq] })],
);

/** AI verdicts. A call may be analysed again on demand; the newest row is the call's verdict. */
export const analyses = sqliteTable(
  "analyses",
  {
    id: id(),
    customerId: customerId(),
    callId: text("call_id").notNull(),
    /** Tier that produced it; provider and model are internal and never leave the API. */
    aiMode: text("ai_mode"),
    provider: text("provider"),
    model: text("model"),
    location: text("location"),
    promptVersion: text("prompt_version").notNull(),
    title: text("title"),
    probability: integer("probability").notNull(),
    category: text("category").notNull(),
    entity: text("entity"),
    callerIdentity: text("caller_identity"),
    redFlags: json<string[]>("red_flags"),
    language: text("language"),
    tcpaComment: text("tcpa_comment"),
    summary: text("summary"),
    recommendation: text("recommendation").notNull(),
    keywords: json<string[]>("keywords"),
    routeAlert: json<Record<string, unknown>>("route_alert"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    /** Provider cost of producing the verdict (not the fee charged to the account). */
    costMicros: micros("cost_micros"),
    latencyMs: integer("latency_ms").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("analyses_call_created_idx").on(t.callId, t.createdAt)],
);

/**
 * Entities and keywords of each call's current verdict, one row per value, for the `entity` and
 * `keyword` filters of GET /calls and the counts of /calls/entities and /calls/keywords.
 * Rows are replaced (delete by call_id, insert) when a newer analysis becomes the verdict.
 * started_at is the call's, so the `days` window counts calls like the dashboard does.
 */
export const callEntities = sqliteTable(
  "call_entities",
  {
    customerId: customerId(),
    callId: text("call_id").notNull(),
    /** As the analyser named it, trimmed. */
    entity: text("entity").notNull(),
    startedAt: text("started_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.callId, t.entity] }),
    index("call_entities_customer_entity_started_idx").on(t.customerId, t.entity, t.startedAt),
    index("call_entities_customer_started_entity_idx").on(t.customerId, t.startedAt, t.entity),
  ],
);

export const callKeywords = sqliteTable(
  "call_keywords",
  {
    customerId: customerId(),
    callId: text("call_id").notNull(),
    /** Trimmed and lower-cased; filters lower-case their input the same way. */
    keyword: text("keyword").notNull(),
    startedAt: text("started_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.callId, t.keyword] }),
    index("call_keywords_customer_keyword_started_idx").on(t.customerId, t.keyword, t.startedAt),
    index("call_keywords_customer_started_keyword_idx").on(t.customerId, t.startedAt, t.keyword),
  ],
);

export const transcripts = sqliteTable(
  "transcripts",
  {
    id: id(),
    customerId: customerId(),
    callId: text("call_id").notNull(),
    provider: text("provider"),
    model: text("model"),
    location: text("location"),
    language: text("language"),
    audioSeconds: real("audio_seconds"),
    costMicros: micros("cost_micros"),
    text: text("text").notNull().default(""),
    segments: json<TranscriptSegment[]>("segments"),
    createdAt: createdAt(),
  },
  (t) => [index("transcripts_call_created_idx").on(t.callId, t.createdAt)],
);

/** One row per queued transcribe-and-analyse run; the queue message carries only the id. */
export const analysisJobs = sqliteTable(
  "analysis_jobs",
  {
    id: id(),
    customerId: customerId(),
    callId: text("call_id").notNull(),
    /** queued | running | done | failed */
    status: text("status").notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("analysis_jobs_customer_call_idx").on(t.customerId, t.callId),
    // Sweep for jobs stuck in running, across accounts.
    index("analysis_jobs_status_updated_idx").on(t.status, t.updatedAt),
  ],
);
