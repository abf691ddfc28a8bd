// The embedded analyser: cue families of phone fraud and a compact learned model (embedded/), nothing
// outside the Worker. Deterministic: the same transcript and facts always give the same verdict.
// It reads English; other languages get a verdict from the call's facts and whatever English words
// they contain.
import { type AnalysisInput, type AnalysisResult, type Analyser, type Verdict, VerdictSchema } from "./analyser.ts";
import { callerName, findClaims, mainClaim } from "./embedded/claims.ts";
import { cueFlagsOf, cueKeywordsOf, cueSummaryOf } from "./embedded/cue-report.ts";
import { cueCategory, recommendationOf } from "./embedded/decision.ts";
import { factEvidenceOf, isScreeningEvidence, type SpeechShape } from "./embedded/facts.ts";
import { type CallFeatures, callFeatures } from "./embedded/features.ts";
import { calibratedLogOdds, COMMITTED_MODEL, type Model, sigmoid } from "./embedded/model.ts";
import { callerIdentityOf, keywordsOf, redFlagsOf, titleOf } from "./embedded/report.ts";
import { categorise, type Score, score } from "./embedded/scoring.ts";
import { claimEvidenceOf, signalEvidenceOf } from "./embedded/speech.ts";
import { languageOf, tcpaCommentOf } from "./embedded/summary.ts";
import { screeningFactsOf, withScreeningFlags } from "./screening.ts";
import { sentencesOf, wordCount } from "./embedded/transcript.ts";
import type { Observation } from "./embedded/observation.ts";
import type { Evidence } from "./embedded/types.ts";

export const EMBEDDED_PROVIDER = "embedded";
export const EMBEDDED_MODEL = `cues-lr-${COMMITTED_MODEL.version}`;
/** Changes whenever a cue, rule or the decision changes, so stored verdicts say which made them. */
export const EMBEDDED_PROMPT_VERSION = "embedded-2026-11-28";

/**
 * How much of a transcript is read: its opening and its end, about seven minutes of speech. A scam's
 * pretext comes early and its ask may come late; the bound keeps a verdict within a few
 * milliseconds of CPU however long the call.
 */
export const ANALYSED_HEAD_CHARS = 4_500;
export const ANALYSED_TAIL_CHARS = 1_500;
const MAX_FLAGS = 20;

function headAndTail(input: AnalysisInput): AnalysisInput {
  if (input.text.length <= ANALYSED_HEAD_CHARS + ANALYSED_TAIL_CHARS) return input;
  const text = `${input.text.slice(0, ANALYSED_HEAD_CHARS)}\n${input.text.slice(-ANALYSED_TAIL_CHARS)}`;
  const ordered = [...input.segments].sort((a, b) => a.start - b.start);
  let head = 0;
  let tail = 0;
  const first = ordered.filter((s) => (head += s.text.length + 1) <= ANALYSED_HEAD_CHARS);
  const last = ordered
    .slice(first.length)
    .reverse()
    .filter((s) => (tail += s.text.length + 1) <= ANALYSED_TAIL_CHARS)
    .reverse();
  return { ...input, text, segments: [...first, ...last] };
}

export function observe(whole: AnalysisInput): Observation {
  const input = headAndTail(whole);
  const sentences = sentencesOf(input);
  const shape: SpeechShape = {
    heard: sentences.length > 0,
    callerWords: wordCount(sentences, "caller") + wordCount(sentences, "unknown"),
    calleeWords: wordCount(sentences, "callee"),
  };
  const claims = findClaims(sentences);
  const claim = mainClaim(claims.claims) ?? mainClaim(claims.references);
  const speech = [...claimEvidenceOf(claims), ...signalEvidenceOf(sentences)];
  const evidence = [...speech, ...factEvidenceOf(input.call, shape, speech)];
  const marked = input.segments.length > 0;
  const features = callFeatures(sentences, evidence, { callerWords: shape.callerWords, calleeWords: shape.calleeWords, marked });
  return { sentences, shape, claim, evidence, features };
}

export function analyseEmbedded(input: AnalysisInput, model: Model = COMMITTED_MODEL): Verdict {
  const seen = observe(input);
  const { sentences, shape, claim, evidence, features } = seen;
  // Without words the call's facts decide (one-ring, silent, premium-rate); with words, the model.
  const rules = score(evidence, shape.heard);
  const probability = shape.heard ? spokenProbability(model, features, evidence) : rules.probability;
  const recommendation = shape.heard ? recommendationOf(probability, features) : rulesRecommendation(rules.probability);
  const flagged = recommendation !== "allow";
  const category = categoryOf(seen, rules, flagged);
  // Screening's facts lead the red flags (they came before answer); the others keep their order.
  const heardOf = evidence.filter((e) => !isScreeningEvidence(e));
  const facts = heardOf.filter((e) => !e.quote);
  const flags = shape.heard ? cueFlagsOf(features.cues, facts, model, flagged) : redFlagsOf(heardOf, probability);
  const language = languageOf(input, sentences);
  return {
    title: titleOf(category, claim),
    probability,
    category,
    entity: claim?.name ?? null,
    caller_identity: callerIdentityOf(callerName(sentences), claim, rules.families),
    red_flags: withScreeningFlags(flags, screeningFactsOf(input.call), MAX_FLAGS),
    language,
    tcpa_comment: tcpaCommentOf(input.call, category, rules.families, probability),
    summary: cueSummaryOf({ seen, category, probability, recommendation, english: language === "en" }),
    recommendation,
    keywords: shape.heard ? cueKeywordsOf(features.cues, model, claim?.name ?? null) : keywordsOf(evidence),
  };
}

/** Log-odds a fact of the call adds per point of its evidence (premium-rate numbers, digits keyed after an ask). */
const FACT_LOG_ODDS_PER_POINT = 1 / 20;

/** The model's calibrated probability, moved by the call's own facts, which no transcript carries. */
function spokenProbability(model: Model, features: CallFeatures, evidence: Evidence[]): number {
  const facts = evidence.filter((e) => !e.quote && e.points > 0).reduce((sum, e) => sum + e.points, 0);
  const p = sigmoid(calibratedLogOdds(model, features.vector) + facts * FACT_LOG_ODDS_PER_POINT);
  return Math.max(1, Math.min(99, Math.round(100 * p)));
}

/**
 * The category: from the facts for a call nobody spoke in; from the cue families for a flagged
 * one (the rules' vote when no family names it); a recorded sales pitch or an ordinary call else.
 */
function categoryOf({ shape, claim, evidence, features }: Observation, rules: Score, flagged: boolean): string {
  if (!shape.heard) return categorise(rules, evidence, claim, false);
  if (flagged)
    return cueCategory(features.families) ?? categorise({ ...rules, probability: Math.max(30, rules.probability) }, evidence, claim, true);
  return features.families.has("offer_deal") && features.families.has("robo_message") ? "telemarketing" : "legitimate";
}

/** A call nobody spoke in: the facts' score read in the dashboard's buckets (70 high, 30 medium). */
function rulesRecommendation(probability: number): Verdict["recommendation"] {
  if (probability >= 70) return "block";
  if (probability >= 30) return "review";
  return "allow";
}

export class EmbeddedAnalyser implements Analyser {
  async analyse(input: AnalysisInput): Promise<AnalysisResult> {
    const started = Date.now();
    const verdict = VerdictSchema.parse(analyseEmbedded(input));
    return {
      verdict,
      provider: EMBEDDED_PROVIDER,
      model: EMBEDDED_MODEL,
      promptVersion: EMBEDDED_PROMPT_VERSION,
      inputTokens: 0,
      outputTokens: 0,
      costMicros: 0,
      latencyMs: Date.now() - started,
    };
  }
}
