import { z } from "@hono/zod-openapi";
import { LiveLegStats } from "../../schema/node-api.ts";
import { CALL_ORIGINS, CALL_STATUSES, LIVE_CALL_STATUSES, RECOMMENDATIONS } from "../../schema/enums.ts";
import { Attestation, IdentityStatus, ScreeningResult } from "../../schema/screening.ts";

const ts = () => z.string().openapi({ format: "date-time" });
const nullableTs = () => ts().nullable();

export const DtmfSchema = z
  .object({
    t: z.number().openapi({ description: "Seconds from the answer", example: 4.2 }),
    digit: z.string().openapi({ example: "5" }),
    channel: z.string().openapi({ example: "caller" }),
    ms: z.number().int().nullable().optional(),
    source: z.string().nullable().optional(),
  })
  .openapi("Dtmf");

export const AnalysisSummarySchema = z
  .object({
    title: z.string().nullable(),
    probability: z.number().int(),
    category: z.string(),
    recommendation: z.string(),
    red_flags: z.array(z.string()).nullable(),
    entity: z.string().nullable().optional(),
    keywords: z.array(z.string()).nullable().optional(),
  })
  .openapi("AnalysisSummary");

/** What screening found before answer (schema/screening.ts): the identity facts, each rule's flag, the action admission took. */
export const CallScreeningSchema = ScreeningResult.openapi("CallScreening", {
  description:
    "The screening result at admission: the caller ID's attestation as the node read it, the rules that flagged the call, and what admission did (refuse, divert, or null)",
});

/** The call's screening fields, in the list, the detail and the inspector alike. */
export const screeningFields = {
  attestation: Attestation.nullable().openapi({ description: "STIR/SHAKEN attestation the PASSporT claimed: A, B or C", example: "A" }),
  identity_status: IdentityStatus.nullable().openapi({
    description: "verified, failed or absent (no Identity header); null when the call was not screened",
    example: "verified",
  }),
  identity_reason: z.string().nullable().openapi({ description: "Why verification failed (bad_signature, stale_iat, x5u_refused ...)" }),
  screening: CallScreeningSchema.nullable(),
};

export const CallSchema = z
  .object({
    id: z.uuid(),
    sip_call_id: z.string(),
    customer_id: z.uuid(),
    origin: z.enum(CALL_ORIGINS).openapi({ description: "sip, dialer or test", example: "sip" }),
    src_ip: z.string().openapi({ example: "203.0.113.10" }),
    ani: z.string().nullable().openapi({ example: "+14155550100" }),
    dialed: z.string().nullable().openapi({ example: "442079460000" }),
    dest_country: z.string().nullable().optional(),
    dest_host: z.string(),
    dest_port: z.number().int(),
    dest_transport: z.string(),
    media_ip: z.string().nullable(),
    external_id: z.string().nullable().optional(),
    external_name: z.string().nullable().optional(),
    sub_customer: z.string().nullable().optional(),
    dial_prefix: z.string().nullable().optional(),
    routed_destination_id: z.uuid().nullable().optional(),
    routed_destination_label: z.string().nullable().optional(),
    route_prefix: z.string().nullable().optional(),
    dest_kind: z.string(),
    dest_tech_prefix: z.string().nullable().optional(),
    dest_provider: z.string().nullable().optional(),
    agent_seconds: z.number().int().nullable().optional(),
    agent_rate_applied: z.number().nullable().optional(),
    ai_mode: z.string().nullable().optional(),
    mos: z.number().nullable().optional(),
    jitter_ms: z.number().nullable().optional(),
    packet_loss_pct: z.number().nullable().optional(),
    qos: z.record(z.string(), z.unknown()).nullable().optional(),
    codec: z.string().nullable().optional(),
    pdd_ms: z.number().int().nullable().optional(),
    answer_delay_ms: z.number().int().nullable().optional(),
    early_media: z.boolean().nullable().optional(),
    hangup_by: z.string().nullable().optional(),
    q850_cause: z.number().int().nullable().optional(),
    q850_text: z.string().nullable().optional(),
    direction: z.string(),
    status: z.enum(CALL_STATUSES).openapi({ description: "ringing, active, completed, failed or rejected", example: "completed" }),
    sip_code: z.number().int().nullable(),
    end_reason: z.string().nullable(),
    started_at: ts(),
    answered_at: nullableTs(),
    ended_at: nullableTs(),
    duration_sec: z.number().int().nullable(),
    billsec: z.number().int().nullable(),
    charged_amount: z.number().openapi({ description: "USD" }),
    rate_applied: z.number().nullable().openapi({ description: "USD per minute" }),
    recording_wav_path: z.string().nullable(),
    recording_available: z.boolean(),
    transcript_status: z.string(),
    analysis_status: z.string(),
    processing: z.string(),
    sampled: z.boolean(),
    transfer_target: z.string().nullable().optional(),
    transfer_status: z.string().nullable().optional(),
    transfer_code: z.number().int().nullable().optional(),
    transfer_at: nullableTs().optional(),
    transfer_mode: z.string().nullable().optional(),
    transfer_call_id: z.uuid().nullable().optional(),
    dtmf: z.array(DtmfSchema).nullable().optional(),
    processing_error: z.string().nullable(),
    created_at: ts(),
    analysis: AnalysisSummarySchema.nullable().optional(),
    has_route_alert: z.boolean(),
    ...screeningFields,
  })
  .openapi("Call");

// ---- The verdict and the transcript ----

export const AnalysisSchema = z
  .object({
    id: z.uuid(),
    ai_mode: z.string().nullable().openapi({ description: "The AI tier that produced it (lite, power, expert)", example: "power" }),
    location: z.string().nullable().optional().openapi({ description: "Where it was produced, when known" }),
    prompt_version: z.string(),
    title: z.string().nullable(),
    probability: z.number().int().openapi({ description: "Fraud probability, 0-100", example: 87 }),
    category: z.string().openapi({ example: "credit_card_scam" }),
    entity: z.string().nullable().openapi({ description: "Who the caller claimed to be", example: "Visa" }),
    caller_identity: z.string().nullable(),
    red_flags: z.array(z.string()).nullable(),
    language: z.string().nullable(),
    tcpa_comment: z.string().nullable(),
    summary: z.string().nullable(),
    recommendation: z.enum(RECOMMENDATIONS).openapi({ example: "block" }),
    keywords: z.array(z.string()).nullable(),
    route_alert: z.record(z.string(), z.unknown()).nullable().optional(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cost: z.number().openapi({ description: "USD" }),
    latency_ms: z.number().int(),
    created_at: ts(),
  })
  .openapi("Analysis", { description: "An AI verdict. The tier is named; the model behind it is not." });

const transcriptMetaFields = {
  id: z.uuid(),
  location: z.string().nullable().optional(),
  language: z.string().nullable(),
  audio_seconds: z.number().nullable(),
  cost: z.number().openapi({ description: "USD" }),
  created_at: ts(),
};

export const TranscriptMetaSchema = z.object(transcriptMetaFields).openapi("TranscriptMeta");

export const TranscriptSchema = z
  .object({
    ...transcriptMetaFields,
    text: z.string(),
    segments: z
      .array(z.record(z.string(), z.unknown()))
      .nullable()
      .openapi({ description: "Stretches of speech: speaker, start and end (seconds), text" }),
  })
  .openapi("Transcript");

export const CallDetailSchema = CallSchema.extend({
  analysis: AnalysisSchema.nullable().optional().openapi({ description: "The current verdict (the newest analysis)" }),
  recording_pcap_paths: z.array(z.string()).nullable(),
  captured_headers: z.record(z.string(), z.unknown()).nullable().optional(),
  case_id: z.uuid().nullable().optional(),
  routed_to_label: z.string().nullable().optional(),
  transcript: TranscriptMetaSchema.nullable().optional(),
  transcript_summary: z.string().nullable().optional(),
}).openapi("CallDetail");

export type CallDetail = z.infer<typeof CallDetailSchema>;
export type Analysis = z.infer<typeof AnalysisSchema>;
export type Transcript = z.infer<typeof TranscriptSchema>;

// ---- SIP log and inspector ----

export const SipLogMessageSchema = z
  .object({
    time_stamp: ts(),
    direction: z.string().openapi({ description: "in or out, as the SIP node saw it", example: "in" }),
    method: z.string().openapi({ example: "INVITE" }),
    status: z.string().nullable().optional().openapi({ description: "Status and reason of a response", example: "200 OK" }),
    fromip: z.string(),
    toip: z.string(),
    fromtag: z.string().nullable().optional(),
    totag: z.string().nullable().optional(),
    first_line: z.string().openapi({ example: "INVITE sip:442079460000@sbc.carrier.example SIP/2.0" }),
    headers: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .openapi("SipLogMessage");

export const SipLogSchema = z
  .object({
    call_id: z.uuid(),
    sip_call_id: z.string(),
    messages: z.array(SipLogMessageSchema),
    text: z.string().openapi({ description: "The ladder as plain text: each message whole, as it crossed the wire" }),
  })
  .openapi("SipLog");

/**
 * One media leg: the node's own figures (LiveLegStats, schema/node-api.ts), live or final. The
 * counters the node may leave out are filled in as they are read, so an answer always has them.
 */
const { packets, bytes, errors } = LiveLegStats.shape;
const LegSchema = LiveLegStats.extend({ packets: packets.unwrap(), bytes: bytes.unwrap(), errors: errors.unwrap() }).openapi("MediaLeg");

export const InspectSchema = z
  .object({
    call: z.object({
      id: z.uuid(),
      status: z.enum(CALL_STATUSES),
      ani: z.string().nullable(),
      dialed: z.string().nullable(),
      external_id: z.string().nullable(),
      external_name: z.string().nullable(),
      sub_customer: z.string().nullable().optional(),
      dest_host: z.string(),
      dest_port: z.number().int(),
      dest_transport: z.string(),
      dest_kind: z.string(),
      dest_provider: z.string().nullable().optional(),
      routed_destination_label: z.string().nullable().optional(),
      route_prefix: z.string().nullable(),
      media_node: z.string().nullable(),
      started_at: ts(),
      answered_at: nullableTs(),
      elapsed_sec: z.number().int().openapi({ description: "Seconds since the call started (its whole length once it ended)" }),
      max_call_seconds: z.number().int().nullable(),
      remaining_sec: z.number().int().nullable().openapi({ description: "Seconds left before the length cap; null once ended" }),
      src_ip: z.string(),
      ended_at: nullableTs().optional(),
      duration_sec: z.number().int().nullable().optional(),
      billsec: z.number().int().nullable().optional(),
      sip_code: z.number().int().nullable().optional(),
      end_reason: z.string().nullable().optional(),
      hangup_by: z.string().nullable().optional(),
      q850_cause: z.number().int().nullable().optional(),
      q850_text: z.string().nullable().optional(),
      attestation: screeningFields.attestation.optional(),
      identity_status: screeningFields.identity_status.optional(),
      identity_reason: screeningFields.identity_reason.optional(),
    }),
    screening: CallScreeningSchema.nullable()
      .optional()
      .openapi({ description: "What screening found before answer; null when not screened" }),
    live: z.boolean().openapi({ description: "True while the call is up (ringing or active)" }),
    ladder: z.array(SipLogMessageSchema).openapi({
      description: "The SIP messages: live from the SIP node so far while the call is up, the record (written at its end) after",
    }),
    signalling: z.object({
      pdd_ms: z.number().int().nullable().optional(),
      answer_delay_ms: z.number().int().nullable().optional(),
      early_media: z.boolean().nullable().optional(),
      codec: z.string().nullable().optional(),
    }),
    media: z
      .object({ sampled_at: ts(), legs: z.record(z.string(), LegSchema) })
      .nullable()
      .optional()
      .openapi({ description: "Per leg (caller, callee): live from the SIP node while up, the final counters after; null when unknown" }),
    quality: z
      .object({
        mos: z.number().nullable().optional(),
        jitter_ms: z.number().nullable().optional(),
        packet_loss_pct: z.number().nullable().optional(),
        legs: z.record(z.string(), LegSchema).nullable().optional(),
      })
      .nullable()
      .optional(),
    pipeline: z.object({
      transcript_status: z.string(),
      analysis_status: z.string(),
      processing: z.string(),
      sampled: z.boolean(),
      processing_error: z.string().nullable().optional(),
    }),
    verdict: z
      .object({
        title: z.string().nullable().optional(),
        probability: z.number().int(),
        category: z.string().nullable().optional(),
        recommendation: z.string(),
        summary: z.string().nullable().optional(),
      })
      .nullable()
      .optional(),
    sampled_at: ts().openapi({ description: "When this document was put together" }),
  })
  .openapi("Inspect");

export type Inspection = z.infer<typeof InspectSchema>;

export const CallIdParam = z.object({ call_id: z.uuid().openapi({ param: { name: "call_id", in: "path" } }) });

export const MediaTokenSchema = z
  .object({
    url: z.string().openapi({
      description: "The recording's address with the token as `t`; needs no Authorization header",
      example: "https://shield.example.net/api/calls/0190f2c4-8a5e-7cc1-9a6b-2f1e3d4c5b6a/recording?t=eyJhbGciOi...",
    }),
    expires_in: z.number().int().openapi({ description: "Seconds the token stays valid", example: 300 }),
  })
  .openapi("MediaToken");

export const RecordingQuery = z.object({
  t: z
    .string()
    .optional()
    .openapi({ description: "A recording token from /calls/{call_id}/recording-token, instead of an Authorization header" }),
});

export const MediaLinkQuery = z.object({
  t: z.string().optional().openapi({ description: "A link token from the MCP tool report_links, instead of an Authorization header" }),
});

export type CallOut = z.infer<typeof CallSchema>;

export const TransferRequestSchema = z
  .object({
    target: z
      .string()
      .min(1)
      .max(32)
      .regex(/^[0-9*#]+$/, "target must be digits, * and # only")
      .openapi({ example: "14155550199" }),
  })
  .openapi("TransferRequest");

export const TransferSchema = z
  .object({
    status: z
      .string()
      .openapi({ description: "in_progress: the node has started it; the call's transfer_status follows", example: "in_progress" }),
    target: z.string(),
    mode: z.string().openapi({ example: "platform" }),
  })
  .openapi("Transfer");

/** A call that is up now, as the account's ledger holds it: the inspector's call facts while it is up. */
export const LiveCallSchema = InspectSchema.shape.call
  .pick({
    id: true,
    ani: true,
    dialed: true,
    external_id: true,
    external_name: true,
    sub_customer: true,
    dest_host: true,
    dest_port: true,
    dest_transport: true,
    dest_kind: true,
    dest_provider: true,
    routed_destination_label: true,
    route_prefix: true,
    media_node: true,
    started_at: true,
    answered_at: true,
    elapsed_sec: true,
    max_call_seconds: true,
    remaining_sec: true,
  })
  .extend({ status: z.enum(LIVE_CALL_STATUSES) })
  .openapi("LiveCall");

export const LiveCallsSchema = z
  .object({
    items: z.array(LiveCallSchema),
    active_count: z.number().int(),
    ports: z.number().int(),
    ports_in_use: z.number().int(),
  })
  .openapi("LiveCalls");
