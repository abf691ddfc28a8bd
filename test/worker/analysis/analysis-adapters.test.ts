// The pipeline's adapters to the outside world, each against a faked edge of that world: an
// OpenAI-compatible chat server, and the Workers AI binding.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../worker/env.ts";
import type { AnalysisInput, Verdict } from "../../../worker/providers/analysis/analyser.ts";
import { CATEGORIES } from "../../../worker/providers/analysis/categories.ts";
import { analyseEmbedded, EmbeddedAnalyser, EMBEDDED_MODEL, EMBEDDED_PROMPT_VERSION } from "../../../worker/providers/analysis/embedded.ts";
import { CUE_FAMILIES, CUES } from "../../../worker/providers/analysis/embedded/cues.ts";
import { BLOCK_MIN, REVIEW_MIN } from "../../../worker/providers/analysis/embedded/decision.ts";
import { OpenAiCompatibleAnalyser } from "../../../worker/providers/analysis/openai-compatible.ts";
import { callMessage, PROMPT_VERSION, SYSTEM_PROMPT } from "../../../worker/providers/analysis/prompt.ts";
import { WorkersAiAnalyser } from "../../../worker/providers/analysis/workers-ai.ts";
import { analyserFrom, transcriberFrom } from "../../../worker/providers/index.ts";
import { ProviderError } from "../../../worker/providers/provider-error.ts";
import { WorkersAiTranscriber } from "../../../worker/providers/transcription/workers-ai.ts";

const input: AnalysisInput = {
  text: "Caller: This is the tax office, pay the fine today in gift cards.",
  segments: [{ speaker: "caller", start: 0, end: 4, text: "This is the tax office, pay the fine today in gift cards." }],
  language: "en",
  call: {
    ani: "+14155550100",
    dialed: "+14155550123",
    destCountry: "US",
    billsec: 30,
    durationSec: 35,
    answered: true,
    hangupBy: "callee",
    dtmf: [],
  },
};

const verdict: Verdict = {
  title: "Tax office impersonation",
  probability: 92,
  category: "government_impersonation",
  entity: "tax office",
  caller_identity: null,
  red_flags: ['1. Demands payment in gift cards: "pay the fine today in gift cards"'],
  language: "en",
  tcpa_comment: "Unsolicited call; TCPA may apply.",
  summary: "The caller claims to be the tax office and demands gift cards.",
  recommendation: "block",
  keywords: ["tax", "gift cards"],
};

function chatServer(content: unknown, status = 200) {
  const bodies: any[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init!.body)));
    if (status !== 200) return new Response("busy", { status });
    return Response.json({ choices: [{ message: { content } }], usage: { prompt_tokens: 1200, completion_tokens: 300 } });
  };
  return { fetch, bodies };
}

describe("the LLM prompt", () => {
  it("lists every category of the closed list with its description, and asks for one of them only", () => {
    for (const [key, description] of Object.entries(CATEGORIES)) expect(SYSTEM_PROMPT).toContain(`- ${key}: ${description}`);
    expect(SYSTEM_PROMPT).toMatch(/exactly one key from this closed list/);
  });

  it("describes every cue family by the embedded analyser's own label", () => {
    for (const family of CUE_FAMILIES) {
      const labels = CUES.filter((c) => c.family === family).map((c) => c.label);
      expect(labels.length, family).toBeGreaterThan(0);
      for (const label of labels) expect(SYSTEM_PROMPT, family).toContain(label);
    }
  });

  it("states the embedded recommendation rule and what the answer's words must be", () => {
    expect(SYSTEM_PROMPT).toContain(`probability >= ${BLOCK_MIN} AND the fraud's core was heard`);
    expect(SYSTEM_PROMPT).toContain(`"review" when probability >= ${REVIEW_MIN}`);
    expect(SYSTEM_PROMPT).toMatch(/one-sided recorded message that asks for an action/);
    expect(SYSTEM_PROMPT).toMatch(/in the order the\s+words were said/);
    expect(SYSTEM_PROMPT).toMatch(/entity \(the organisation the caller impersonates/);
    expect(SYSTEM_PROMPT).toMatch(/summary \(one sentence/);
  });

  it("shows the words of a transcript without segments, unmarked", () => {
    const unmarked = callMessage({ ...input, segments: [], text: "press one now to speak to an agent" });
    expect(unmarked).toContain("(unmarked)\npress one now to speak to an agent");
    expect(callMessage({ ...input, segments: [], text: "  " })).toContain("(no speech)");
    expect(callMessage(input)).toContain("[0.0s] caller: This is the tax office");
  });
});

describe("OpenAiCompatibleAnalyser", () => {
  it("sends the versioned prompt and the call, and records tokens, cost and prompt version", async () => {
    const server = chatServer(JSON.stringify(verdict));
    const analyser = new OpenAiCompatibleAnalyser({
      baseUrl: "http://llm.test/v1",
      model: "m",
      price: { input: 2, output: 8 },
      fetch: server.fetch,
    });
    const result = await analyser.analyse(input);
    expect(result).toMatchObject({ verdict, provider: "openai-compatible", model: "m", promptVersion: PROMPT_VERSION });
    expect(result).toMatchObject({ inputTokens: 1200, outputTokens: 300, costMicros: 2400 + 2400 });
    expect(server.bodies[0].response_format).toEqual({ type: "json_object" });
    expect(server.bodies[0].messages[1].content).toContain("pay the fine today in gift cards");
  });

  it("answers the embedded verdict for the call, once, when the answer is not the strict verdict", async () => {
    const bad = [{ ...verdict, extra: 1 }, { ...verdict, probability: 140 }, { ...verdict, recommendation: "maybe" }, "not json"];
    for (const answer of bad) {
      const server = chatServer(typeof answer === "string" ? answer : JSON.stringify(answer));
      const analyser = new OpenAiCompatibleAnalyser({
        baseUrl: "http://llm.test/v1",
        model: "m",
        price: { input: 2, output: 8 },
        fetch: server.fetch,
      });
      const result = await analyser.analyse(input);
      expect(result).toMatchObject({
        verdict: analyseEmbedded(input),
        provider: "openai-compatible+embedded-fallback",
        model: EMBEDDED_MODEL,
        promptVersion: EMBEDDED_PROMPT_VERSION,
        // The LLM call was made and paid for, whatever it answered.
        inputTokens: 1200,
        outputTokens: 300,
        costMicros: 2400 + 2400,
      });
      // Resolved, not thrown: the queue does not try again, and no second request was made.
      expect(server.bodies).toHaveLength(1);
    }
  });

  it("answers the embedded verdict when the category is not in the closed list", async () => {
    for (const category of ["irs_scam", "crypto_fraud", "other"]) {
      const server = chatServer(JSON.stringify({ ...verdict, category }));
      const analyser = new OpenAiCompatibleAnalyser({ baseUrl: "http://llm.test/v1", model: "m", fetch: server.fetch });
      const result = await analyser.analyse(input);
      expect(result.provider).toBe("openai-compatible+embedded-fallback");
      expect(result.verdict).toEqual(analyseEmbedded(input));
      expect(Object.keys(CATEGORIES)).toContain(result.verdict.category);
      expect(server.bodies).toHaveLength(1);
    }
  });

  it("passes through an answer of every category in the list", async () => {
    for (const category of Object.keys(CATEGORIES)) {
      const answer = { ...verdict, category };
      const analyser = new OpenAiCompatibleAnalyser({
        baseUrl: "http://llm.test/v1",
        model: "m",
        fetch: chatServer(JSON.stringify(answer)).fetch,
      });
      await expect(analyser.analyse(input)).resolves.toMatchObject({ verdict: answer, provider: "openai-compatible" });
    }
  });

  it("says whether a failure is worth another try", async () => {
    const busy = new OpenAiCompatibleAnalyser({ baseUrl: "http://llm.test/v1", model: "m", fetch: chatServer("", 503).fetch });
    await expect(busy.analyse(input)).rejects.toMatchObject({ retryable: true });
    const refused = new OpenAiCompatibleAnalyser({ baseUrl: "http://llm.test/v1", model: "m", fetch: chatServer("", 401).fetch });
    await expect(refused.analyse(input)).rejects.toMatchObject({ retryable: false });
  });
});

describe("Workers AI adapters", () => {
  it("analyse with the tier's model and read the JSON answer", async () => {
    const calls: string[] = [];
    const ai = { run: async (model: string) => (calls.push(model), { response: JSON.stringify(verdict), usage: { prompt_tokens: 10 } }) };
    const result = await new WorkersAiAnalyser(ai, "@cf/meta/llama-3.3-70b-instruct-fp8-fast").analyse(input);
    expect(result).toMatchObject({ verdict, provider: "workers-ai", inputTokens: 10 });
    expect(calls).toEqual(["@cf/meta/llama-3.3-70b-instruct-fp8-fast"]);
  });

  it("answer the embedded verdict, without a retry, when the model's answer is off the schema or the list", async () => {
    for (const response of [JSON.stringify({ ...verdict, red_flags: "none" }), { ...verdict, category: "scam" }, "", null]) {
      let runs = 0;
      const ai = { run: async () => (runs++, { response, usage: { prompt_tokens: 10 } }) };
      const result = await new WorkersAiAnalyser(ai, "@cf/meta/llama-3.3-70b-instruct-fp8-fast").analyse(input);
      expect(result).toMatchObject({ verdict: analyseEmbedded(input), provider: "workers-ai+embedded-fallback", inputTokens: 10 });
      expect(runs).toBe(1);
    }
  });

  it("still fail, worth another try, when the binding itself fails", async () => {
    const ai = {
      run: async () => {
        throw new Error("capacity");
      },
    };
    const failing = new WorkersAiAnalyser(ai, "m").analyse(input);
    await expect(failing).rejects.toBeInstanceOf(ProviderError);
    await expect(failing).rejects.toMatchObject({ retryable: true });
  });

  it("transcribe the audio with Whisper's timed segments", async () => {
    const ai = {
      run: async (_model: string, args: Record<string, unknown>) => {
        expect(typeof args.audio).toBe("string");
        return {
          text: "hello there",
          transcription_info: { language: "en", duration: 2.5 },
          segments: [{ start: 0.2, end: 2.1, text: " hello there" }],
        };
      },
    };
    const heard = await new WorkersAiTranscriber(ai).transcribe({ speaker: "caller", wav: new Uint8Array(64) });
    expect(heard).toEqual({
      text: "hello there",
      language: "en",
      audioSeconds: 2.5,
      segments: [{ start: 0.2, end: 2.1, text: "hello there" }],
    });
  });
});

describe("adapter choice by configuration", () => {
  const config = loadConfig(env);
  const ai = { run: async () => ({}) };

  it("serves a tier with its provider where it is configured, else with the embedded analyser", () => {
    expect(analyserFrom({ provider: "workers-ai", model: "x" }, config, { ...env, AI: ai })).toBeInstanceOf(WorkersAiAnalyser);
    expect(analyserFrom({ provider: "workers-ai", model: "x" }, config, { ...env, AI: undefined })).toBeInstanceOf(EmbeddedAnalyser);
    expect(analyserFrom({ provider: "openai-compatible", model: "x" }, { ...config, ANALYSIS_URL: undefined }, env)).toBeInstanceOf(
      EmbeddedAnalyser,
    );
    expect(
      analyserFrom({ provider: "openai-compatible", model: "x" }, { ...config, ANALYSIS_URL: "http://llm.test/v1" }, env),
    ).toBeInstanceOf(OpenAiCompatibleAnalyser);
  });

  it("turns transcription off when its service is not there", () => {
    expect(transcriberFrom({ ...config, TRANSCRIPTION_PROVIDER: "off" }, env)).toBeNull();
    expect(transcriberFrom({ ...config, TRANSCRIPTION_PROVIDER: "workers-ai" }, { ...env, AI: undefined })).toBeNull();
    expect(transcriberFrom({ ...config, TRANSCRIPTION_PROVIDER: "workers-ai" }, { ...env, AI: ai })).toBeInstanceOf(WorkersAiTranscriber);
    expect(
      transcriberFrom({ ...config, TRANSCRIPTION_PROVIDER: "openai-compatible", TRANSCRIPTION_URL: "http://127.0.0.1:8786/v1" }, env)?.info,
    ).toEqual({
      provider: "openai-compatible",
      model: "whisper-1",
    });
  });
});
