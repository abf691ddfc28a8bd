// What the LLM adapters share: reading the model's answer as the strict Verdict, and the embedded
// verdict for the call when the answer is not one
// (docs/decisions/calls-and-analysis.md#the-embedded-verdict-as-the-llm-tiers-fallback).
import { type AnalysisInput, type AnalysisResult, VerdictSchema, type Verdict } from "./analyser.ts";
import { CATEGORIES } from "./categories.ts";
import { analyseEmbedded, EMBEDDED_MODEL, EMBEDDED_PROMPT_VERSION } from "./embedded.ts";
import { screeningFactsOf, withScreeningFlags } from "./screening.ts";

const MAX_FLAGS = 20;

/** Appended to the adapter's provider when the embedded analyser gave the verdict in its place. */
export const EMBEDDED_FALLBACK_SUFFIX = "+embedded-fallback";

export type ReadVerdict = { ok: true; verdict: Verdict } | { ok: false; reason: string };

/**
 * The model's text (or object) as a Verdict of the closed category list; else why not. A model
 * that answers off the schema will most likely do so again, so this is no reason to retry.
 */
export function readVerdict(answer: unknown): ReadVerdict {
  let value = answer;
  if (typeof answer === "string") {
    const json = /\{[\s\S]*\}/.exec(answer)?.[0];
    try {
      value = json ? JSON.parse(json) : null;
    } catch {
      value = null;
    }
  }
  const parsed = VerdictSchema.safeParse(value);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join(".") || "(root)").join(", ");
    return { ok: false, reason: `the model's verdict did not match the schema (${where})` };
  }
  if (!Object.hasOwn(CATEGORIES, parsed.data.category)) {
    return { ok: false, reason: `the model's category "${parsed.data.category}" is not in the closed list` };
  }
  return { ok: true, verdict: parsed.data };
}

export type LlmCall = {
  /** The adapter's provider name ("openai-compatible", "workers-ai"). */
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  started: number;
};

/**
 * The result of one LLM call: its verdict when the answer is one, else the embedded analyser's
 * verdict for the same call, said in `provider` ("<provider>+embedded-fallback") and with the
 * embedded model and version that made it. Tokens and cost stay the LLM call's: they were spent.
 */
export function llmResult(input: AnalysisInput, answer: unknown, call: LlmCall, promptVersion: string): AnalysisResult {
  const read = readVerdict(answer);
  const spent = { inputTokens: call.inputTokens, outputTokens: call.outputTokens, costMicros: call.costMicros };
  if (read.ok) {
    // The screening's facts are the call's, not the model's to leave out: listed first whatever it wrote.
    const redFlags = withScreeningFlags(read.verdict.red_flags, screeningFactsOf(input.call), MAX_FLAGS);
    return {
      verdict: { ...read.verdict, red_flags: redFlags },
      provider: call.provider,
      model: call.model,
      promptVersion,
      ...spent,
      latencyMs: Date.now() - call.started,
    };
  }
  console.warn(`analysis: ${call.provider} model ${call.model}: ${read.reason}; the embedded verdict stands in`);
  return {
    verdict: VerdictSchema.parse(analyseEmbedded(input)),
    provider: `${call.provider}${EMBEDDED_FALLBACK_SUFFIX}`,
    model: EMBEDDED_MODEL,
    promptVersion: EMBEDDED_PROMPT_VERSION,
    ...spent,
    latencyMs: Date.now() - call.started,
  };
}

/** Micro-dollars for a number of tokens at a price per million tokens in USD. */
export const tokenCostMicros = (tokens: number, usdPerMillion: number) => Math.ceil(tokens * usdPerMillion);
