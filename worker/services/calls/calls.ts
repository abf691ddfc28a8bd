// The call record as the API shows it, and what a customer can do to a call that is up.
// The list and its filters are in call-search.ts; the verdict, transcript and ladder in call-records.ts.
import { and, eq } from "drizzle-orm";
import { calls } from "../../../schema/calls.ts";
import { cases } from "../../../schema/cases.ts";
import type { Db } from "../../lib/db.ts";
import { toUsd } from "../../lib/money.ts";
import { nowIso } from "../../lib/time.ts";
import { screeningOut } from "./screening.ts";
import { analysisOut, callOfAccount, newestAnalysis, newestTranscriptMeta, transcriptMetaOut, type VerdictExtras } from "./records.ts";
import type { Services } from "../context.ts";
import { Conflict, Unavailable } from "../errors.ts";
import { owned } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";

type CallRow = typeof calls.$inferSelect;

/**
 * A call as lists show it. The verdict summary is the calls row's copy (probability, category,
 * recommendation); `verdict` adds what only the current analysis holds (title, red flags, entity, keywords).
 */
export function callOut(row: CallRow, verdict: VerdictExtras | null = null) {
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
        : {
            title: verdict?.title ?? null,
            probability: row.probability,
            category: row.category ?? "unknown",
            recommendation: row.recommendation ?? "review",
            red_flags: verdict?.redFlags ?? null,
            entity: verdict?.entity ?? null,
            keywords: verdict?.keywords ?? null,
          },
    has_route_alert: row.hasRouteAlert,
    ...screeningOut(row),
  };
}

/** The call a case or a ticket names, as lists show it with its verdict; null when it names none or the call is gone. */
export async function linkedCallOut(db: Db, customerId: string, callId: string | null) {
  if (!callId) return null;
  const row = await db
    .select()
    .from(calls)
    .where(owned(calls, customerId, callId))
    .get();
  return row ? callOut(row, await newestAnalysis(db, row)) : null;
}

/** GET /calls/{id}: the record, its current verdict in full, the newest transcript's description. */
export async function getCall(s: Services, principal: Principal, callId: string) {
  const row = await callOfAccount(s, principal, callId);
  const [analysis, transcript, investigation] = await Promise.all([
    newestAnalysis(s.db, row),
    newestTranscriptMeta(s.db, row),
    s.db
      .select({ id: cases.id })
      .from(cases)
      .where(and(eq(cases.customerId, row.customerId), eq(cases.callId, row.id)))
      .get(),
  ]);
  return {
    ...callOut(row, analysis),
    analysis: analysis ? analysisOut(analysis) : null,
    recording_pcap_paths: row.recordingPcapPaths,
    captured_headers: row.capturedHeaders,
    case_id: investigation?.id ?? null,
    routed_to_label: row.routedDestinationLabel,
    transcript: transcript ? transcriptMetaOut(transcript) : null,
    transcript_summary: row.transcriptSummary,
  };
}

const TRANSFER_TIMEOUT_MS = 5_000;

/**
 * Tells the SIP node carrying an answered call, through the NodeHub, to transfer it the way the
 * call's destination says (platform: the node bridges the caller to the target; refer: the node
 * asks the caller's side to call the target). How the transfer ends comes back as a call event.
 */
export async function transferCall(s: Services, principal: Principal, callId: string, target: string) {
  const call = await callOfAccount(s, principal, callId);
  if (call.status !== "active") throw new Conflict("only a call that is up can be transferred");
  const mode = call.transferMode === "refer" ? "refer" : "platform";
  const outcome = await s.hub.command({ type: "transfer", call_id: call.id, target, mode }, TRANSFER_TIMEOUT_MS, call.nodeId ?? undefined);
  if (!outcome.ok) {
    if (outcome.error === "no_node" || outcome.error === "timeout")
      throw new Unavailable("The SIP node carrying the call cannot be reached, retry");
    // The node refused: the call ended meanwhile, or a transfer is already under way.
    throw new Conflict(outcome.error);
  }
  const at = nowIso();
  await s.db
    .update(calls)
    .set({ transferTarget: target, transferMode: mode, transferStatus: "in_progress", transferCode: null, transferAt: at, updatedAt: at })
    .where(owned(calls, principal.customer.id, call.id));
  return { status: "in_progress", target, mode };
}
