// The calls pipeline: a recorded call the sampling policy selects (or one a customer asks for,
// ./on-demand.ts) becomes a job; the job transcribes the recording side by side, analyses
// transcript and call facts with the account's AI tier, stores both, and hands the verdict to the seam
// (services/analysis/verdicts.ts). Statuses (docs/decisions/calls-and-analysis.md#statuses-retries-and-refunds):
//   none     nothing to work on (not answered, relay_only, rejected)
//   pending  the call is under way; its recording is awaited
//   skipped  recorded but not selected (sampling, record_only, or the fee not covered); analysable on demand
//   queued   a job waits; running: a job works on it; done; failed (after the last attempt)
// The fee is charged once, when the job is made (entry analysis:<job id>), and refunded if the job fails.
import { and, desc, eq, inArray, lt } from "drizzle-orm";
import { analysisJobs, calls, callEntities, callKeywords, analyses, transcripts } from "../../../schema/calls.ts";
import { aiTiers } from "../../../schema/catalogue.ts";
import { parseWav, type WavAudio } from "../../../schema/wav.ts";
import { runBatch } from "../../lib/db.ts";
import { describeError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Segment } from "../../providers/analysis/analyser.ts";
import { ProviderError } from "../../providers/provider-error.ts";
import type { Services } from "../context.ts";
import { routeAlertOf } from "../alerts/route-alerts.ts";
import { screeningOut } from "../calls/screening.ts";
import { screeningFactsOfCall } from "./screening-facts.ts";
import { transcribeRecording } from "./transcription.ts";

type CallRow = typeof calls.$inferSelect;
type JobRow = typeof analysisJobs.$inferSelect;

export type AnalysisMessage = { job_id: string };

const DEFAULT_TIER = "power";
const CALLER = 0;
const CALLEE = 1;

/** After a call's recording is stored: queue it when the sampling policy selects it, else mark it skipped. */
export async function afterRecording(s: Services, callId: string): Promise<void> {
  // Only the first upload of the recording moves the call on: a retried or doubled upload finds it
  // claimed, so it can never make a second job (nor charge a second fee).
  const call = await s.db
    .update(calls)
    .set({ transcriptStatus: "queued", analysisStatus: "queued", updatedAt: nowIso() })
    .where(and(eq(calls.id, callId), eq(calls.analysisStatus, "pending")))
    .returning()
    .get();
  if (!call) return;
  if (call.processing !== "full" || !call.sampled) return setStatuses(s, call.id, "skipped", "skipped");
  const queued = await enqueue(s, call, call.aiMode, "auto");
  if (!queued) await setStatuses(s, call.id, "skipped", "skipped", "The balance did not cover the analysis fee");
}

async function tierOf(s: Services, mode: string | null) {
  const tier = await s.db
    .select()
    .from(aiTiers)
    .where(eq(aiTiers.mode, mode ?? DEFAULT_TIER))
    .get();
  return tier ?? (await s.db.select().from(aiTiers).where(eq(aiTiers.mode, DEFAULT_TIER)).get())!;
}

/** Makes the job, charges its fee, queues it. Null when the balance does not cover the fee. */
export async function enqueue(s: Services, call: CallRow, mode: string | null, reason: "auto" | "on_demand"): Promise<string | null> {
  const tier = await tierOf(s, mode);
  const jobId = newId();
  const at = nowIso();
  if (tier.analysisFeeMicros > 0) {
    const charged = await s.ledger(call.customerId).debit({
      entryId: `analysis:${jobId}`,
      type: "analysis",
      amountMicros: tier.analysisFeeMicros,
      callId: call.id,
      description: `AI analysis (${tier.mode}${reason === "on_demand" ? ", on demand" : ""})`,
      createdAt: at,
    });
    if (!charged.ok) return null;
  }
  await runBatch(s.db, [
    s.db
      .insert(analysisJobs)
      .values({ id: jobId, customerId: call.customerId, callId: call.id, status: "queued", createdAt: at, updatedAt: at }),
    s.db
      .update(calls)
      // The call's ai_mode names the tier of its current analysis.
      .set({ aiMode: tier.mode, transcriptStatus: "queued", analysisStatus: "queued", processingError: null, updatedAt: at })
      .where(eq(calls.id, call.id)),
  ]);
  // A lost send is found by the cron sweep (requeueStaleJobs) and sent again.
  await s.queues.analysis.send({ job_id: jobId } satisfies AnalysisMessage).catch((err: unknown) => {
    console.error(`analysis job ${jobId}: queueing failed, the sweep will retry`, describeError(err));
  });
  return jobId;
}

export type JobOutcome = { outcome: "done" | "failed" | "gone" } | { outcome: "retry"; delaySeconds: number };

/** Runs one job. Safe to run twice: a finished job is left alone, and rows are keyed by the job id. */
export async function runAnalysisJob(s: Services, jobId: string): Promise<JobOutcome> {
  const job = await s.db.select().from(analysisJobs).where(eq(analysisJobs.id, jobId)).get();
  if (!job || job.status === "done" || job.status === "failed") return { outcome: "gone" };
  const call = await s.db.select().from(calls).where(eq(calls.id, job.callId)).get();
  if (!call) return { outcome: "gone" };
  const attempts = job.attempts + 1;
  await s.db.update(analysisJobs).set({ status: "running", attempts, updatedAt: nowIso() }).where(eq(analysisJobs.id, job.id));
  try {
    await work(s, job, call);
    return { outcome: "done" };
  } catch (err) {
    return failed(s, job, call, attempts, err);
  }
}

async function work(s: Services, job: JobRow, call: CallRow): Promise<void> {
  const audio = await recordingOf(s, call);
  await setStatuses(s, call.id, "running", "queued");
  const transcript = await storedOrNewTranscript(s, job, call, audio);
  await setStatuses(s, call.id, transcript ? "done" : "skipped", "running");

  const tier = await tierOf(s, call.aiMode);
  const segments = (transcript?.segments ?? []) as Segment[];
  const result = await s.analyserFor(tier).analyse({
    text: transcript?.text ?? "",
    segments,
    language: transcript?.language ?? null,
    call: {
      ani: call.ani,
      dialed: call.dialed,
      destCountry: call.destCountry,
      billsec: call.billsec,
      durationSec: call.durationSec,
      answered: call.answeredAt !== null,
      hangupBy: call.hangupBy,
      dtmf: call.dtmf ?? [],
      screening: screeningFactsOfCall(call),
    },
  });
  const routeAlert = audio && audio.channels > CALLEE && call.billsec ? routeAlertOf(audio, CALLEE, call.billsec) : null;
  const { verdict } = result;
  const at = nowIso();
  await runBatch(s.db, [
    s.db
      .insert(analyses)
      .values({
        id: job.id,
        customerId: call.customerId,
        callId: call.id,
        aiMode: tier.mode,
        provider: result.provider,
        model: result.model,
        promptVersion: result.promptVersion,
        title: verdict.title,
        probability: verdict.probability,
        category: verdict.category,
        entity: verdict.entity,
        callerIdentity: verdict.caller_identity,
        redFlags: verdict.red_flags,
        language: verdict.language,
        tcpaComment: verdict.tcpa_comment,
        summary: verdict.summary,
        recommendation: verdict.recommendation,
        keywords: verdict.keywords,
        routeAlert,
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
        costMicros: result.costMicros,
        latencyMs: result.latencyMs,
        createdAt: at,
      })
      .onConflictDoNothing(),
    s.db
      .update(calls)
      .set({
        probability: verdict.probability,
        category: verdict.category,
        recommendation: verdict.recommendation,
        hasRouteAlert: routeAlert !== null,
        transcriptSummary: verdict.summary,
        analysisStatus: "done",
        processingError: null,
        updatedAt: at,
      })
      .where(eq(calls.id, call.id)),
    ...facetWrites(s, call, verdict.entity, verdict.keywords),
    s.db.update(analysisJobs).set({ status: "done", error: null, updatedAt: at }).where(eq(analysisJobs.id, job.id)),
  ]);
  await s.verdicts.deliver({
    customerId: call.customerId,
    callId: call.id,
    analysisId: job.id,
    aiMode: tier.mode,
    verdict,
    routeAlert,
    call: {
      ani: call.ani,
      dialed: call.dialed,
      startedAt: call.startedAt,
      destinationId: call.routedDestinationId,
      screening: screeningOut(call),
    },
    at,
  });
}

/** The call's entity and keywords as the current verdict names them (for filters and counts). */
function facetWrites(s: Services, call: CallRow, entity: string | null, keywords: string[] | null) {
  const words = [...new Set((keywords ?? []).map((k) => k.trim().toLowerCase()).filter(Boolean))];
  const base = { customerId: call.customerId, callId: call.id, startedAt: call.startedAt };
  return [
    s.db.delete(callEntities).where(eq(callEntities.callId, call.id)),
    s.db.delete(callKeywords).where(eq(callKeywords.callId, call.id)),
    ...(entity?.trim() ? [s.db.insert(callEntities).values({ ...base, entity: entity.trim() })] : []),
    ...words.map((keyword) => s.db.insert(callKeywords).values({ ...base, keyword })),
  ];
}

async function recordingOf(s: Services, call: CallRow): Promise<WavAudio | null> {
  if (!call.recordingWavPath) return null;
  const object = await s.media.get(call.recordingWavPath);
  if (!object) throw new ProviderError("the recording is not in the media store yet", true);
  return parseWav(new Uint8Array(await object.arrayBuffer()));
}

/** A transcript this job already stored (a redelivery), or a new one; null when nothing can be transcribed. */
async function storedOrNewTranscript(s: Services, job: JobRow, call: CallRow, audio: WavAudio | null) {
  const stored = await s.db.select().from(transcripts).where(eq(transcripts.id, job.id)).get();
  if (stored) return stored;
  if (!audio || !s.transcriber) return null;
  const made = await transcribeRecording(s.transcriber, audio, { caller: CALLER, callee: CALLEE });
  const row = {
    id: job.id,
    customerId: call.customerId,
    callId: call.id,
    provider: s.transcriber.info.provider,
    model: s.transcriber.info.model,
    language: made.language,
    audioSeconds: made.audioSeconds,
    costMicros: 0,
    text: made.text,
    segments: made.segments,
    createdAt: nowIso(),
  };
  await s.db.insert(transcripts).values(row).onConflictDoNothing();
  return row;
}

async function failed(s: Services, job: JobRow, call: CallRow, attempts: number, err: unknown): Promise<JobOutcome> {
  const message = err instanceof ProviderError ? err.message : describeError(err);
  const retryable = !(err instanceof ProviderError) || err.retryable;
  const at = nowIso();
  if (retryable && attempts < s.config.ANALYSIS_MAX_ATTEMPTS) {
    await runBatch(s.db, [
      s.db.update(analysisJobs).set({ status: "queued", error: message, updatedAt: at }).where(eq(analysisJobs.id, job.id)),
      s.db.update(calls).set({ processingError: message, updatedAt: at }).where(eq(calls.id, call.id)),
    ]);
    // 30 s, 2 min, 8 min...: long enough for a provider to come back.
    return { outcome: "retry", delaySeconds: 30 * 4 ** (attempts - 1) };
  }
  console.error(`analysis job ${job.id} of call ${call.id} failed after ${attempts} attempt(s)`, message);
  await runBatch(s.db, [
    s.db.update(analysisJobs).set({ status: "failed", error: message, updatedAt: at }).where(eq(analysisJobs.id, job.id)),
    s.db
      .update(calls)
      .set({
        transcriptStatus: call.transcriptStatus === "done" ? "done" : "failed",
        analysisStatus: "failed",
        processingError: message,
        updatedAt: at,
      })
      .where(eq(calls.id, call.id)),
  ]);
  await refundFee(s, job, call);
  return { outcome: "failed" };
}

async function refundFee(s: Services, job: JobRow, call: CallRow): Promise<void> {
  await s.ledger(call.customerId).refund({
    entryId: `analysis-refund:${job.id}`,
    ofEntryId: `analysis:${job.id}`,
    type: "refund",
    description: "AI analysis failed: fee refunded",
    createdAt: nowIso(),
  });
}

export async function setStatuses(s: Services, callId: string, transcript: string, analysis: string, error?: string): Promise<void> {
  await s.db
    .update(calls)
    .set({ transcriptStatus: transcript, analysisStatus: analysis, ...(error ? { processingError: error } : {}), updatedAt: nowIso() })
    .where(eq(calls.id, callId));
}

/** Cron: jobs queued or running for longer than `staleMinutes` are sent again (a lost send, a dead consumer). */
export async function requeueStaleJobs(s: Services, now: Date, staleMinutes = 15): Promise<number> {
  const before = new Date(now.getTime() - staleMinutes * 60_000).toISOString();
  const stale = await s.db
    .select({ id: analysisJobs.id })
    .from(analysisJobs)
    .where(and(inArray(analysisJobs.status, ["queued", "running"]), lt(analysisJobs.updatedAt, before)))
    .orderBy(desc(analysisJobs.updatedAt))
    .limit(100);
  for (const { id } of stale) {
    await s.db.update(analysisJobs).set({ status: "queued", updatedAt: now.toISOString() }).where(eq(analysisJobs.id, id));
    await s.queues.analysis.send({ job_id: id } satisfies AnalysisMessage);
  }
  return stale.length;
}
