// The call record as the API shows it. Filters beyond origin and status, the analysis and
// the media endpoints arrive with the calls issue.
import { and, count, desc, eq, type SQL } from "drizzle-orm";
import { calls } from "../../../schema/calls.ts";
import type { Db } from "../../lib/db.ts";
import { notFound } from "../../lib/errors.ts";
import { toUsd } from "../../lib/money.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import type { Principal } from "../auth/principal.ts";

type CallRow = typeof calls.$inferSelect;

export function callOut(row: CallRow) {
  return {
    id: row.id,
    sip_call_id: row.sipCallId,
    customer_id: row.customerId,
    origin: row.origin,
    src_ip: row.srcIp,
    ani: row.ani,
    dialed: row.dialed,
    dest_country: row.destCountry,
    dest_host: row.destHost,
    dest_port: row.destPort,
    dest_transport: row.destTransport,
    media_ip: row.mediaIp,
    external_id: row.externalId,
    external_name: row.externalName,
    sub_customer: row.subCustomer,
    dial_prefix: row.dialPrefix,
    routed_destination_id: row.routedDestinationId,
    routed_destination_label: row.routedDestinationLabel,
    route_prefix: row.routePrefix,
    dest_kind: row.destKind,
    dest_tech_prefix: row.destTechPrefix,
    dest_provider: row.destProvider,
    agent_seconds: row.agentSeconds,
    agent_rate_applied: row.agentRateAppliedMicros === null ? null : toUsd(row.agentRateAppliedMicros),
    ai_mode: row.aiMode,
    mos: row.mos,
    jitter_ms: row.jitterMs,
    packet_loss_pct: row.packetLossPct,
    qos: row.qos,
    codec: row.codec,
    pdd_ms: row.pddMs,
    answer_delay_ms: row.answerDelayMs,
    early_media: row.earlyMedia,
    hangup_by: row.hangupBy,
    q850_cause: row.q850Cause,
    q850_text: row.q850Text,
    direction: row.direction,
    status: row.status,
    sip_code: row.sipCode,
    end_reason: row.endReason,
    started_at: row.startedAt,
    answered_at: row.answeredAt,
    ended_at: row.endedAt,
    duration_sec: row.durationSec,
    billsec: row.billsec,
    charged_amount: toUsd(row.chargedMicros),
    rate_applied: row.rateAppliedMicros === null ? null : toUsd(row.rateAppliedMicros),
    recording_wav_path: row.recordingWavPath,
    recording_available: row.recordingAvailable,
    transcript_status: row.transcriptStatus,
    analysis_status: row.analysisStatus,
    processing: row.processing,
    sampled: row.sampled,
    transfer_target: row.transferTarget,
    transfer_status: row.transferStatus,
    transfer_code: row.transferCode,
    transfer_at: row.transferAt,
    transfer_mode: row.transferMode,
    transfer_call_id: row.transferCallId,
    dtmf: row.dtmf,
    processing_error: row.processingError,
    created_at: row.createdAt,
    analysis:
      row.probability === null
        ? null
        : { title: null, probability: row.probability, category: row.category ?? "unknown", recommendation: row.recommendation ?? "review", red_flags: null },
    has_route_alert: row.hasRouteAlert,
  };
}

export async function listCalls(db: Db, principal: Principal, query: PageParams & { origin?: string; status?: string }) {
  const filters: SQL[] = [eq(calls.customerId, principal.customer.id)];
  if (query.origin) filters.push(eq(calls.origin, query.origin));
  if (query.status) filters.push(eq(calls.status, query.status));
  const where = and(...filters);
  const [rows, total] = await Promise.all([
    db.select().from(calls).where(where).orderBy(desc(calls.startedAt), desc(calls.id)).limit(query.limit).offset(query.offset),
    db.select({ n: count() }).from(calls).where(where).get(),
  ]);
  return page(rows.map(callOut), total?.n ?? 0, query);
}

export async function getCall(db: Db, principal: Principal, callId: string) {
  const row = await db
    .select()
    .from(calls)
    .where(and(eq(calls.id, callId), eq(calls.customerId, principal.customer.id)))
    .get();
  if (!row) throw notFound("Call not found");
  return {
    ...callOut(row),
    recording_pcap_paths: row.recordingPcapPaths,
    captured_headers: row.capturedHeaders,
    case_id: null,
    routed_to_label: row.routedDestinationLabel,
    transcript_summary: row.transcriptSummary,
  };
}
