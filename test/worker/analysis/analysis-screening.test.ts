// What screening found before answer, read by the analyser as evidence (issue 32): each fact a red
// flag in plain words, listed first; the strong ones (a failed verification, the caller ID equal to
// the number dialled, the do-not-originate list, a velocity rule) raise the probability, the weak
// ones only show; a call without screening gets the verdict it always got; the LLM tiers are told
// the facts and their red flags keep them; the pipeline hands the facts from the call's row.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AnalysisInput, CallFacts, Verdict } from "../../../worker/providers/analysis/analyser.ts";
import { analyseEmbedded } from "../../../worker/providers/analysis/embedded.ts";
import { OpenAiCompatibleAnalyser } from "../../../worker/providers/analysis/openai-compatible.ts";
import { callMessage } from "../../../worker/providers/analysis/prompt.ts";
import type { ScreeningFacts } from "../../../worker/providers/analysis/screening.ts";
import { analyseOnDemand } from "../../../worker/services/analysis/on-demand.ts";
import { runAnalysisJob } from "../../../worker/services/analysis/pipeline.ts";
import type { VerdictEvent } from "../../../worker/services/analysis/verdicts.ts";
import { endedCall, sampleOut, stereoWav, uploadRecording } from "../fixtures/call.ts";
import { principalOf, testServices } from "../fixtures/factory.ts";
import { inputOf } from "./corpus/index.ts";

const US_CALL: Partial<CallFacts> = { ani: "+14155550123", dialed: "+12125550188", destCountry: "US" };

const ORDINARY = [
  { speaker: "caller" as const, text: "Hi, this is Sam from Dr. Patel's office calling about your appointment on Thursday." },
  { speaker: "callee" as const, text: "Oh right, is it still at ten?" },
  { speaker: "caller" as const, text: "Yes, ten o'clock. Please bring your insurance card. See you then." },
  { speaker: "callee" as const, text: "Great, thanks, bye." },
];

/** A call the words leave in doubt (allowed, at about a quarter): where screening's facts matter most. */
const AMBIGUOUS = [
  {
    speaker: "caller" as const,
    text: "Hello, this is Mike from the billing department. We noticed a problem with your recent payment and need to confirm some details.",
  },
  { speaker: "callee" as const, text: "Okay, what details?" },
  { speaker: "caller" as const, text: "Can you confirm your date of birth for verification?" },
];

const none: ScreeningFacts = { identityStatus: null, identityReason: null, attestation: null, verstat: null, flags: [] };
const failedSpoof: ScreeningFacts = {
  ...none,
  identityStatus: "failed",
  identityReason: "bad_signature",
  attestation: "A",
  flags: [
    { rule: "identity_failed", detail: "the PASSporT's signature did not verify" },
    { rule: "caller_id_equals_dialled", detail: "+12125550188 called +12125550188" },
  ],
};

const withScreening = (screening: ScreeningFacts | null | undefined, segments = ORDINARY): AnalysisInput =>
  inputOf({ segments, call: { ...US_CALL, screening } });
const doubtful = (screening: ScreeningFacts | undefined) => withScreening(screening, AMBIGUOUS);

describe("the embedded analyser reads the screening", () => {
  it("gives a call without screening (absent, null, or nothing found) the verdict it always got", () => {
    const plain = analyseEmbedded(inputOf({ segments: ORDINARY, call: US_CALL }));
    expect(analyseEmbedded(withScreening(null))).toEqual(plain);
    expect(analyseEmbedded(withScreening({ ...none, identityStatus: "verified", attestation: "A" }))).toEqual(plain);
    expect(analyseEmbedded(withScreening({ ...none, identityStatus: "absent" }))).toEqual(plain);
  });

  it("lists a failed verification and a caller ID equal to the number dialled first, and raises the probability", () => {
    const plain = analyseEmbedded(doubtful(undefined));
    const screened = analyseEmbedded(doubtful(failedSpoof));
    expect(plain.recommendation).toBe("allow");
    // Together, strong enough to send a doubtful call to review.
    expect(screened.recommendation).toBe("review");
    expect(screened.red_flags!.slice(0, 2)).toEqual([
      "1. The caller ID failed verification (bad_signature)",
      "2. The caller ID matched the number dialled (+12125550188 called +12125550188)",
    ]);
    // The identity's own fact stands for the rule that flagged it: listed once.
    expect(screened.red_flags!.filter((f) => f.includes("failed verification"))).toHaveLength(1);
    expect(screened.probability).toBeGreaterThan(plain.probability);
    // Numbered anew after them: every flag once, in sequence.
    screened.red_flags!.forEach((flag, i) => expect(flag.startsWith(`${i + 1}. `), flag).toBe(true));
  });

  it("words the do-not-originate list, a carrier's failed verstat and a velocity rule, each raising the probability", () => {
    const plain = analyseEmbedded(doubtful(undefined)).probability;
    const cases: [ScreeningFacts, string][] = [
      [
        { ...none, flags: [{ rule: "do_not_originate", detail: "+12125550100 is on the list" }] },
        "The caller ID is on the do-not-originate list (+12125550100 is on the list)",
      ],
      [
        { ...none, identityStatus: "absent", verstat: "TN-Validation-Failed", flags: [] },
        "The caller's carrier failed the caller ID's verification (TN-Validation-Failed)",
      ],
      [
        { ...none, flags: [{ rule: "calls_per_minute", detail: "31 calls in a minute from +14155550123" }] },
        "A velocity rule flagged the caller: 31 calls in a minute from +14155550123 (calls_per_minute)",
      ],
    ];
    for (const [screening, flag] of cases) {
      const verdict = analyseEmbedded(doubtful(screening));
      expect(verdict.red_flags![0], flag).toBe(`1. ${flag}`);
      expect(verdict.probability, flag).toBeGreaterThan(plain);
    }
  });

  it("shows a weak sign (a neighbour's exchange) without moving the probability", () => {
    const plain = analyseEmbedded(doubtful(undefined));
    const neighbour = { ...none, flags: [{ rule: "neighbour_spoofing", detail: "+12125550100 shares 212-555 with +12125550188" }] };
    const verdict = analyseEmbedded(doubtful(neighbour));
    expect(verdict.red_flags![0]).toBe(
      "1. The caller ID shares the dialled number's area code and exchange (+12125550100 shares 212-555 with +12125550188)",
    );
    expect(verdict.probability).toBe(plain.probability);
    expect(verdict.recommendation).toBe(plain.recommendation);
  });

  it("judges a call nobody spoke in by its screening too, and says so in the summary", () => {
    const silent = (screening: ScreeningFacts | null): AnalysisInput => ({
      text: "",
      segments: [],
      language: null,
      call: { ...US_CALL, billsec: 40, durationSec: 45, answered: true, hangupBy: "caller", dtmf: [], screening } as CallFacts,
    });
    const plain = analyseEmbedded(silent(null));
    const screened = analyseEmbedded(
      silent({ ...failedSpoof, flags: [...failedSpoof.flags, { rule: "do_not_originate", detail: "listed" }] }),
    );
    expect(screened.probability).toBeGreaterThan(plain.probability);
    expect(screened.recommendation).not.toBe("allow");
    expect(screened.red_flags![0]).toBe("1. The caller ID failed verification (bad_signature)");
    expect(screened.summary).toBe("No speech was heard; the caller ID failed verification (bad_signature).");
  });
});

describe("the LLM tiers are told the screening", () => {
  const llmVerdict: Verdict = {
    title: "Appointment reminder",
    probability: 5,
    category: "legitimate",
    entity: null,
    caller_identity: "Sam",
    red_flags: ["1. Mentions an insurance card"],
    language: "en",
    tcpa_comment: "not applicable",
    summary: "An appointment reminder.",
    recommendation: "allow",
    keywords: null,
  };
  const analyser = (bodies: any[]) =>
    new OpenAiCompatibleAnalyser({
      baseUrl: "http://llm.test/v1",
      model: "m",
      price: { input: 1, output: 1 },
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init!.body)));
        return Response.json({
          choices: [{ message: { content: JSON.stringify(llmVerdict) } }],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        });
      },
    });

  it("in the call's facts only when there are some", () => {
    expect(callMessage(withScreening(undefined))).not.toContain("screening");
    expect(callMessage(withScreening(failedSpoof))).toContain(
      '"screening":["The caller ID failed verification (bad_signature)","The caller ID matched the number dialled (+12125550188 called +12125550188)"]',
    );
  });

  it("and the model's red flags keep them first, numbered anew, whatever it wrote", async () => {
    const bodies: any[] = [];
    const result = await analyser(bodies).analyse(withScreening(failedSpoof));
    expect(bodies[0].messages[1].content).toContain("The caller ID failed verification (bad_signature)");
    expect(result.verdict.red_flags).toEqual([
      "1. The caller ID failed verification (bad_signature)",
      "2. The caller ID matched the number dialled (+12125550188 called +12125550188)",
      "3. Mentions an insurance card",
    ]);
    // Without screening the model's answer stands as it came.
    expect((await analyser([]).analyse(withScreening(undefined))).verdict).toEqual(llmVerdict);
  });
});

describe("the pipeline hands the call's screening to the analyser and on", () => {
  it("reads the screening from the call's row: red flags stored, the verdict event carries it", async () => {
    const placed = await endedCall(undefined, { seconds: 10 });
    await sampleOut(placed.callId);
    await uploadRecording(placed.callId, stereoWav(10, { caller: "talk", callee: "talk" }));
    const screening = {
      identity: null,
      flags: [
        { rule: "caller_id_equals_dialled", detail: "the caller ID is the number dialled", action: "flag" },
        { rule: "neighbour_spoofing", detail: "ignored: the rule is off", action: "off" },
      ],
      action: null,
      rule: null,
    };
    await env.DB.prepare(
      "UPDATE calls SET attestation = 'C', identity_status = 'failed', identity_reason = 'stale_iat', screening = ? WHERE id = ?",
    )
      .bind(JSON.stringify(screening), placed.callId)
      .run();
    const verdicts: VerdictEvent[] = [];
    const services = testServices({
      queues: { analysis: { send: async () => undefined } as unknown as Queue<unknown>, deliveries: env.DELIVERY_QUEUE },
      verdicts: { deliver: async (event) => void verdicts.push(event) },
    });
    const { job_id } = await analyseOnDemand(services, await principalOf(placed.owner), placed.callId);
    expect(await runAnalysisJob(services, job_id)).toEqual({ outcome: "done" });

    const stored = await env.DB.prepare("SELECT red_flags FROM analyses WHERE id = ?").bind(job_id).first<{ red_flags: string }>();
    const flags = JSON.parse(stored!.red_flags) as string[];
    expect(flags.slice(0, 2)).toEqual([
      "1. The caller ID failed verification (stale_iat)",
      "2. The caller ID matched the number dialled (the caller ID is the number dialled)",
    ]);
    // A rule set to off flagged nothing: not evidence.
    expect(flags.join(" ")).not.toContain("area code");
    expect(verdicts[0]!.call.screening).toEqual({
      attestation: "C",
      identity_status: "failed",
      identity_reason: "stale_iat",
      screening,
    });
  });
});
