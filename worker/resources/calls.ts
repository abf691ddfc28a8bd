import { z } from "@hono/zod-openapi";
import { pageOf, pageQuery, WIDE_PAGE } from "../lib/pagination.ts";

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

export const CallSchema = z
  .object({
    id: z.uuid(),
    sip_call_id: z.string(),
    customer_id: z.uuid(),
    origin: z.string().openapi({ description: "sip, dialer or test", example: "sip" }),
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
    status: z.string().openapi({ description: "ringing, active, completed, failed or rejected", example: "completed" }),
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
  })
  .openapi("Call");

export const CallDetailSchema = CallSchema.extend({
  recording_pcap_paths: z.array(z.string()).nullable(),
  captured_headers: z.record(z.string(), z.unknown()).nullable().optional(),
  case_id: z.uuid().nullable().optional(),
  routed_to_label: z.string().nullable().optional(),
  transcript_summary: z.string().nullable().optional(),
}).openapi("CallDetail");

export const CallListSchema = pageOf(CallSchema, "CallList");

export const CallListQuery = pageQuery(WIDE_PAGE).extend({
  origin: z
    .enum(["sip", "dialer", "test"], { error: "origin must be 'sip', 'dialer' or 'test'" })
    .optional()
    .openapi({ description: "sip, dialer or test" }),
  status: z.string().max(32).optional(),
});

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
