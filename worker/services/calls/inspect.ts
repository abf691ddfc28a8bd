// The call inspector (GET /calls/{id}/inspect), polled about every two seconds while a call is
// up. After the call everything comes from the record; while it is up (ringing or active) the
// media legs and the ladder so far come live from the SIP node carrying it, through the NodeHub
// (one `stats` command answers both). A node that cannot be reached in time only leaves `media`
// null and the ladder as recorded: the inspector never fails for it.
import { z } from "zod";
import { LiveLegStats, SipLadder, type SipLogMessage } from "../../../schema/node-api.ts";
import type { calls } from "../../../schema/calls.ts";
import { isLiveCallStatus } from "../../../schema/enums.ts";
import { describeError } from "../../lib/errors.ts";
import { callOfAccount, newestAnalysis, sipMessageOut, sipMessagesOf } from "./records.ts";
import { screeningOut } from "./screening.ts";
import type { Services } from "../context.ts";
import type { Principal } from "../identity/principal.ts";
import type { Inspection } from "../../resources/calls.ts";

type CallRow = typeof calls.$inferSelect;

/** How long the inspector waits for the node's figures: under the two-second polling period. */
export const LIVE_STATS_TIMEOUT_MS = 1_500;

type Media = NonNullable<Inspection["media"]>;
type Quality = NonNullable<Inspection["quality"]>;
type Legs = Media["legs"];

/** The media part of the node's answer to `stats`, as it sends it (counters it leaves out read 0). */
const LiveMedia = z.object({ sampled_at: z.string(), legs: z.record(z.string(), LiveLegStats) });

const seconds = (fromIso: string, toMs: number) => Math.max(0, Math.floor((toMs - Date.parse(fromIso)) / 1000));

type Live = { media: Media | null; ladder: SipLogMessage[] | null };
const NOTHING_LIVE: Live = { media: null, ladder: null };

/**
 * A call that is up, as the node carrying it has it now (one `stats` round trip): its media legs
 * and the messages recorded so far; each null when the node cannot say (or says something that
 * does not parse).
 */
async function liveStats(s: Services, call: CallRow): Promise<Live> {
  try {
    const outcome = await s.hub.command({ type: "stats", call_id: call.id }, LIVE_STATS_TIMEOUT_MS, call.nodeId ?? undefined);
    // no_node, timeout, or the node no longer carries the call: nothing live this time.
    if (!outcome.ok) return NOTHING_LIVE;
    const media = LiveMedia.nullable().safeParse(outcome.result.media ?? null);
    const ladder = SipLadder.nullable().safeParse(outcome.result.ladder ?? null);
    return { media: media.success ? media.data : null, ladder: ladder.success ? ladder.data : null };
  } catch (err) {
    console.error("inspect: live stats unavailable", describeError(err));
    return NOTHING_LIVE;
  }
}

/** A message of the node's live ladder as the API lists the recorded ones (sipMessageOut): no wire text. */
const liveMessageOut = (m: SipLogMessage) => ({
  time_stamp: m.time_stamp,
  direction: m.direction,
  method: m.method,
  status: m.status ?? null,
  fromip: m.fromip,
  toip: m.toip,
  fromtag: m.fromtag ?? null,
  totag: m.totag ?? null,
  first_line: m.first_line,
  headers: m.headers ?? null,
});

/** The worst of the legs that carried packets: lowest MOS, highest jitter and loss. */
function qualityOf(legs: Legs): Quality {
  const carrying = Object.values(legs).filter((l) => l.packets > 0);
  const worst = (pick: (l: LiveLegStats) => number | null | undefined, choose: (...v: number[]) => number) => {
    const values = carrying.map(pick).filter((v): v is number => typeof v === "number");
    return values.length ? choose(...values) : null;
  };
  return {
    mos: worst((l) => l.mos, Math.min),
    jitter_ms: worst((l) => l.jitter_ms, Math.max),
    packet_loss_pct: worst((l) => l.loss_pct, Math.max),
    legs,
  };
}

/** The final per-leg counters the node reported at the end (the record's qos), when they parse. */
function recordedLegs(call: CallRow): Legs | null {
  if (!call.qos) return null;
  const legs = LiveMedia.shape.legs.safeParse(call.qos);
  return legs.success ? legs.data : null;
}

/**
 * A call D1 shows as up, as its ledger has it now: its status and answer time come from there (D1
 * has them a moment later); null once the ledger has ended it (D1 then has the end a moment later).
 */
async function fromLedger(s: Services, call: CallRow): Promise<CallRow | null> {
  const ledgerCall = await s.ledger(call.customerId).liveCall(call.id);
  if (!ledgerCall) return null;
  return { ...call, status: ledgerCall.status, answeredAt: ledgerCall.answeredAt ?? call.answeredAt };
}

export async function inspectCall(s: Services, principal: Principal, callId: string): Promise<Inspection> {
  const recorded = await callOfAccount(s, principal, callId);
  const liveCall = isLiveCallStatus(recorded.status) ? await fromLedger(s, recorded) : null;
  const call = liveCall ?? recorded;
  const live = liveCall !== null;
  const [messages, analysis, { media, ladder: liveLadder }] = await Promise.all([
    sipMessagesOf(s.db, call),
    newestAnalysis(s.db, call),
    live ? liveStats(s, call) : Promise.resolve(NOTHING_LIVE),
  ]);
  const now = Date.now();

  let finalMedia: Media | null = media;
  let quality: Quality | null = media ? qualityOf(media.legs) : null;
  if (!live) {
    const legs = recordedLegs(call);
    finalMedia = legs ? { sampled_at: call.endedAt ?? call.updatedAt, legs } : null;
    const measured = call.mos !== null || call.jitterMs !== null || call.packetLossPct !== null || legs !== null;
    quality = measured ? { mos: call.mos, jitter_ms: call.jitterMs, packet_loss_pct: call.packetLossPct, legs } : null;
  }

  const elapsed = live
    ? seconds(call.startedAt, now)
    : (call.durationSec ?? seconds(call.startedAt, Date.parse(call.endedAt ?? call.updatedAt)));
  // The length cap runs from the answer (the node hangs up max_call_seconds after it).
  const remaining =
    !live || call.maxCallSeconds === null
      ? null
      : call.answeredAt
        ? Math.max(0, call.maxCallSeconds - seconds(call.answeredAt, now))
        : call.maxCallSeconds;

  const verdict = analysis
    ? {
        title: analysis.title,
        probability: analysis.probability,
        category: analysis.category,
        recommendation: analysis.recommendation,
        summary: analysis.summary,
      }
    : call.probability !== null
      ? {
          title: null,
          probability: call.probability,
          category: call.category,
          recommendation: call.recommendation ?? "review",
          summary: null,
        }
      : null;
  // Known from admission on: the inspector shows it while the call still rings.
  const { screening, ...identity } = screeningOut(call);

  return {
    call: {
      id: call.id,
      status: call.status,
      ani: call.ani,
      dialed: call.dialed,
      external_id: call.externalId,
      external_name: call.externalName,
      sub_customer: call.subCustomer,
      dest_host: call.destHost,
      dest_port: call.destPort,
      dest_transport: call.destTransport,
      dest_kind: call.destKind,
      dest_provider: call.destProvider,
      routed_destination_label: call.routedDestinationLabel,
      route_prefix: call.routePrefix,
      media_node: call.mediaNode ?? call.mediaIp,
      started_at: call.startedAt,
      answered_at: call.answeredAt,
      elapsed_sec: elapsed,
      max_call_seconds: call.maxCallSeconds,
      remaining_sec: remaining,
      src_ip: call.srcIp,
      ended_at: call.endedAt,
      duration_sec: call.durationSec,
      billsec: call.billsec,
      sip_code: call.sipCode,
      end_reason: call.endReason,
      hangup_by: call.hangupBy,
      q850_cause: call.q850Cause,
      q850_text: call.q850Text,
      ...identity,
    },
    screening,
    live,
    // While up, the node's messages so far (the record has them only from the end).
    ladder: liveLadder ? liveLadder.map(liveMessageOut) : messages.map(sipMessageOut),
    signalling: { pdd_ms: call.pddMs, answer_delay_ms: call.answerDelayMs, early_media: call.earlyMedia, codec: call.codec },
    media: finalMedia,
    quality,
    pipeline: {
      transcript_status: call.transcriptStatus,
      analysis_status: call.analysisStatus,
      processing: call.processing,
      sampled: call.sampled,
      processing_error: call.processingError,
    },
    verdict,
    sampled_at: new Date(now).toISOString(),
  };
}
