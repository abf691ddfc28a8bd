// The calls pipeline (issue: every recorded call ends in a verdict): a recorded call the sampling
// selects is queued, transcribed side by side, analysed with the account's tier, charged once, and
// its verdict handed on; failures are retried, then marked and refunded.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { OpenAiCompatibleTranscriber } from "../../../worker/providers/transcription/openai-compatible.ts";
import { analyseOnDemand } from "../../../worker/services/analysis/on-demand.ts";
import { afterRecording, runAnalysisJob, type AnalysisMessage } from "../../../worker/services/analysis/pipeline.ts";
import type { VerdictEvent } from "../../../worker/services/analysis/verdicts.ts";
import { endedCall, sampleOut, stereoWav, uploadRecording } from "../fixtures/call.ts";
import { createAccount, principalOf, testServices, type Session } from "../fixtures/factory.ts";
import { callRow } from "../fixtures/node-client.ts";
import { bodyOf, expectStatus, firstOf, issuesOf } from "../fixtures/client.ts";

const SCAM = {
  caller: [
    "Hello, this is the fraud department of your bank.",
    "We detected a suspicious charge on your card and we have to block it right now.",
    "Please read me the one time code we just sent to your phone. Do not tell anyone, this is urgent.",
  ],
  callee: ["Oh no. Okay, what do I need to do?"],
};

/** The outside world's edge: an OpenAI-compatible transcription server answering per side. */
function fakeTranscriptionServer(script: { caller: string[]; callee: string[] }, status = 200) {
  const requests: string[] = [];
  const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
    const form = init!.body as FormData;
    const file = form.get("file") as File;
    requests.push(`${form.get("response_format")}:${file.name}`);
    if (status !== 200) return new Response("upstream down", { status });
    const lines = file.name.startsWith("caller") ? script.caller : script.callee;
    const offset = file.name.startsWith("caller") ? 0 : 1;
    const segments = lines.map((text, i) => ({ start: offset + i * 4, end: offset + i * 4 + 3.5, text }));
    return Response.json({ text: lines.join(" "), language: "en", duration: 20, segments });
  });
  const transcriber = new OpenAiCompatibleTranscriber({ baseUrl: "http://transcriber.test/v1", model: "whisper-1", fetch });
  return { transcriber, requests };
}

/** Services as the queue consumer builds them, with the outside edges faked and the queue and verdict seam recorded. */
function pipelineServices(transcriber: OpenAiCompatibleTranscriber) {
  const sent: AnalysisMessage[] = [];
  const verdicts: VerdictEvent[] = [];
  const services = testServices({
    transcriber,
    queues: {
      analysis: { send: async (body: unknown) => void sent.push(body as AnalysisMessage) } as unknown as Queue<unknown>,
      deliveries: env.DELIVERY_QUEUE,
    },
    verdicts: { deliver: async (event) => void verdicts.push(event) },
  });
  return { services, sent, verdicts };
}

const ledgerOf = async (owner: Session) => bodyOf(await owner.client.get("/api/customer/ledger"), 200).items;

/** A recorded call that the sampling left out, so nothing runs until the test says so. */
async function recordedCall(owner?: Session, seconds = 20) {
  const placed = await endedCall(owner, { seconds });
  await sampleOut(placed.callId);
  await uploadRecording(placed.callId, stereoWav(seconds, { caller: "talk", callee: "talk" }));
  return placed;
}

describe("a recorded call the sampling selects", () => {
  it("is queued when its recording arrives, analysed through the real queue, and charged the tier's fee once", async () => {
    const { owner, callId } = await endedCall(undefined, { seconds: 12 });
    expect((await callRow(callId))!.analysis_status).toBe("pending");
    await uploadRecording(callId, stereoWav(12, { caller: "talk", callee: "talk" }));
    await vi.waitFor(
      async () => {
        const call = bodyOf(await owner.client.get(`/api/calls/${callId}`), 200);
        expect(call.analysis_status).toBe("done");
      },
      { timeout: 20_000, interval: 250 },
    );
    const call = bodyOf(await owner.client.get(`/api/calls/${callId}`), 200);
    expect(call.analysis).toMatchObject({ recommendation: expect.stringMatching(/^(block|review|allow)$/) });
    // Transcription is off in the tests' Worker: the verdict rests on the call's facts.
    expect(call.transcript_status).toBe("skipped");
    const fees = (await ledgerOf(owner)).filter((e) => e.type === "analysis");
    expect(fees).toEqual([expect.objectContaining({ amount: -0.02, call_id: callId })]);
  });

  it("makes one job however many times its recording's upload is reported at once", async () => {
    const { owner, callId } = await endedCall(undefined, { seconds: 10 });
    const key = `calls/${owner.account.id}/${callId}/recording.wav`;
    await env.MEDIA.put(key, stereoWav(10, { caller: "talk", callee: "talk" }));
    await env.DB.prepare("UPDATE calls SET recording_wav_path = ?, recording_available = 1 WHERE id = ?").bind(key, callId).run();
    const { services, sent } = pipelineServices(fakeTranscriptionServer(SCAM).transcriber);
    await Promise.all([afterRecording(services, callId), afterRecording(services, callId), afterRecording(services, callId)]);
    expect(sent).toHaveLength(1);
    expect((await ledgerOf(owner)).filter((e) => e.type === "analysis")).toHaveLength(1);
  });

  it("is never queued when nothing was answered", async () => {
    const { callId } = await endedCall(undefined, { seconds: 0 });
    expect(await callRow(callId)).toMatchObject({ transcript_status: "none", analysis_status: "none" });
  });

  it("is marked skipped, not queued, when the sampling leaves it out", async () => {
    const { owner, callId } = await recordedCall();
    expect(await callRow(callId)).toMatchObject({ transcript_status: "skipped", analysis_status: "skipped" });
    expect((await ledgerOf(owner)).filter((e) => e.type === "analysis")).toEqual([]);
  });
});

describe("a job", () => {
  it("transcribes each side, stores speaker-timed segments, and hands a verdict quoting the words on", async () => {
    const { owner, callId } = await recordedCall();
    const { transcriber, requests } = fakeTranscriptionServer(SCAM);
    const { services, sent, verdicts } = pipelineServices(transcriber);
    const queued = await analyseOnDemand(services, await principalOf(owner), callId);
    expect(queued).toEqual({ job_id: expect.any(String), analysis_status: "queued" });
    expect(sent).toEqual([{ job_id: queued.job_id }]);

    expect(await runAnalysisJob(services, queued.job_id)).toEqual({ outcome: "done" });
    expect(requests.sort()).toEqual(["verbose_json:callee.wav", "verbose_json:caller.wav"]);
    const transcript = bodyOf(await owner.client.get(`/api/calls/${callId}`), 200);
    expect(transcript).toMatchObject({ transcript_status: "done", analysis_status: "done", processing_error: null });
    const stored = await env.DB.prepare("SELECT text, segments FROM transcripts WHERE call_id = ?").bind(callId).first<any>();
    const segments = JSON.parse(stored.segments);
    expect(segments.map((s: any) => s.speaker)).toEqual(["caller", "callee", "caller", "caller"]);
    expect(stored.text).toContain("Caller: Hello, this is the fraud department of your bank.");

    expect(verdicts).toHaveLength(1);
    const { verdict } = verdicts[0]!;
    expect(["block", "review"]).toContain(verdict.recommendation);
    expect(verdict.red_flags!.join(" ")).toMatch(/one time code|fraud department|urgent/i);
    expect(transcript.analysis).toMatchObject({ probability: verdict.probability, recommendation: verdict.recommendation });
  });

  it("run twice (a redelivery) stores one transcript and one analysis and charges once", async () => {
    const { owner, callId } = await recordedCall();
    const { transcriber } = fakeTranscriptionServer(SCAM);
    const { services, verdicts } = pipelineServices(transcriber);
    const { job_id } = await analyseOnDemand(services, await principalOf(owner), callId);
    await Promise.all([runAnalysisJob(services, job_id), runAnalysisJob(services, job_id)]);
    expect(await runAnalysisJob(services, job_id)).toEqual({ outcome: "gone" });
    const count = async (table: string) =>
      (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE call_id = ?`).bind(callId).first<{ n: number }>())!.n;
    expect(await count("transcripts")).toBe(1);
    expect(await count("analyses")).toBe(1);
    expect((await ledgerOf(owner)).filter((e) => e.type === "analysis")).toHaveLength(1);
    expect(verdicts.length).toBeGreaterThanOrEqual(1);
  });

  it("is retried with backoff while the provider fails, then marked failed and its fee refunded", async () => {
    const { owner, callId } = await recordedCall();
    const { transcriber } = fakeTranscriptionServer(SCAM, 503);
    const { services } = pipelineServices(transcriber);
    const { job_id } = await analyseOnDemand(services, await principalOf(owner), callId);
    const outcomes = [];
    for (let i = 0; i < services.config.ANALYSIS_MAX_ATTEMPTS; i++) outcomes.push(await runAnalysisJob(services, job_id));
    expect(outcomes.slice(0, -1)).toEqual(
      [
        { outcome: "retry", delaySeconds: 30 },
        { outcome: "retry", delaySeconds: 120 },
        { outcome: "retry", delaySeconds: 480 },
      ].slice(0, services.config.ANALYSIS_MAX_ATTEMPTS - 1),
    );
    expect(outcomes.at(-1)).toEqual({ outcome: "failed" });
    const call = await callRow(callId);
    expect(call).toMatchObject({ transcript_status: "failed", analysis_status: "failed" });
    expect(call!.processing_error).toMatch(/transcription service answered 503/);
    const entries = await ledgerOf(owner);
    const fee = firstOf(
      entries.filter((e) => e.type === "analysis"),
      "an analysis fee",
    );
    const refund = entries.find((e) => e.type === "refund");
    expect(refund).toMatchObject({ amount: -fee.amount, call_id: callId });
  });

  it("fails at once, without retries, when the provider refuses the request", async () => {
    const { owner, callId } = await recordedCall();
    const { transcriber } = fakeTranscriptionServer(SCAM, 400);
    const { services } = pipelineServices(transcriber);
    const { job_id } = await analyseOnDemand(services, await principalOf(owner), callId);
    expect(await runAnalysisJob(services, job_id)).toEqual({ outcome: "failed" });
  });
});

describe("the sampling policy", () => {
  it("with sample_mode record, relays the calls left out of the sample without recording them", async () => {
    const { callId } = await endedCall(undefined, { seconds: 5, destination: { sample_rate: 1_000_000, sample_mode: "record" } });
    expect(await callRow(callId)).toMatchObject({ sampled: 0, processing: "relay_only", analysis_status: "none" });
  });

  it("with sample_mode analyse, records every call and analyses the sample", async () => {
    const { callId } = await endedCall(undefined, { seconds: 5, destination: { sample_rate: 1_000_000, sample_mode: "analyse" } });
    expect(await callRow(callId)).toMatchObject({ sampled: 0, processing: "full", analysis_status: "pending" });
  });
});

describe("route alerts", () => {
  it("a verdict on a call whose called side never made a sound carries no_live_party evidence", async () => {
    const { owner, callId } = await endedCall(undefined, { seconds: 12 });
    await sampleOut(callId);
    await uploadRecording(callId, stereoWav(12, { caller: "talk", callee: "silence" }));
    const { transcriber } = fakeTranscriptionServer({ caller: ["Hello? Hello, is anyone there?"], callee: [] });
    const { services, verdicts } = pipelineServices(transcriber);
    const { job_id } = await analyseOnDemand(services, await principalOf(owner), callId);
    await runAnalysisJob(services, job_id);
    expect(verdicts[0]!.routeAlert).toMatchObject({ kind: "no_live_party" });
    expect(bodyOf(await owner.client.get(`/api/calls/${callId}`), 200).has_route_alert).toBe(true);
  });
});

describe("POST /api/calls/{call_id}/analyze", () => {
  it("queues a recorded call and answers 202 with the job", async () => {
    const { owner, callId } = await recordedCall();
    const res = await owner.client.post(`/api/calls/${callId}/analyze`);
    expectStatus(res, 202);
    expect(res.body).toEqual({ job_id: expect.any(String), analysis_status: "queued" });
    const fees = (await ledgerOf(owner)).filter((e) => e.type === "analysis");
    expect(fees).toEqual([expect.objectContaining({ amount: -0.02, call_id: callId })]);
  });

  it("answers 409 analysis_in_progress while a job for the call waits or runs, charging once", async () => {
    const { owner, callId } = await recordedCall();
    const answers = await Promise.all([1, 2, 3].map(() => owner.client.post(`/api/calls/${callId}/analyze`)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body).toEqual({ detail: "analysis_in_progress" });
    expect((await ledgerOf(owner)).filter((e) => e.type === "analysis")).toHaveLength(1);
  });

  it("answers 409 relay_only for a call with nothing recorded, charging nothing", async () => {
    const { owner, callId } = await endedCall(undefined, { seconds: 10 });
    const res = await owner.client.post(`/api/calls/${callId}/analyze`);
    expect(res).toMatchObject({ status: 409, body: { detail: "relay_only" } });
    expect((await ledgerOf(owner)).filter((e) => e.type === "analysis")).toEqual([]);
  });

  it("answers 404 for another account's call", async () => {
    const { callId } = await recordedCall();
    const stranger = await createAccount();
    expect((await stranger.client.post(`/api/calls/${callId}/analyze`)).status).toBe(404);
  });

  it("answers 402 when the balance does not cover the fee, queueing nothing", async () => {
    const { owner, callId } = await recordedCall();
    await env.DB.prepare("UPDATE ai_tiers SET analysis_fee_micros = 900000000 WHERE mode = 'expert'").run();
    try {
      expect((await owner.client.put("/api/customer/ai-mode", { mode: "expert" })).status).toBe(200);
      const res = await owner.client.post(`/api/calls/${callId}/analyze`);
      expectStatus(res, 402);
      const jobs = await env.DB.prepare("SELECT COUNT(*) AS n FROM analysis_jobs WHERE call_id = ?").bind(callId).first<{ n: number }>();
      expect(jobs!.n).toBe(0);
    } finally {
      await env.DB.prepare("UPDATE ai_tiers SET analysis_fee_micros = 60000 WHERE mode = 'expert'").run();
    }
  });
});

describe("AI tiers of the account", () => {
  it("marks the current tier, changes it, and names the field of an unknown one", async () => {
    const owner = await createAccount();
    const before = bodyOf(await owner.client.get("/api/customer/ai-modes"), 200);
    expect(before.filter((t) => t.current).map((t) => t.mode)).toEqual(["power"]);
    const set = await owner.client.put("/api/customer/ai-mode", { mode: "lite" });
    expect(set).toMatchObject({ status: 200, body: { mode: "lite", current: true, analysis_fee_per_call: 0.005 } });
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).ai_mode).toBe("lite");
    const bad = await owner.client.put("/api/customer/ai-mode", { mode: "gpt-9" });
    expectStatus(bad, 422);
    expect(issuesOf(bad.body)[0]?.loc).toEqual(["body", "mode"]);
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).ai_mode).toBe("lite");
  });

  it("a later tier change leaves a running call's tier alone", async () => {
    const owner = await createAccount();
    const { callId } = await endedCall(owner, { seconds: 5 });
    await owner.client.put("/api/customer/ai-mode", { mode: "lite" });
    expect((await callRow(callId))!.ai_mode).toBe("power");
  });
});
