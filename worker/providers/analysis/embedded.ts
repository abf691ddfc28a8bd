// The embedded analyser: rules and a lexicon (embedded/), nothing outside the Worker. Deterministic:
// the same transcript and facts always give the same verdict. It reads English; other languages
// get a verdict from the call's facts and whatever English words they contain.
import { type AnalysisInput, type AnalysisResult, type Analyser, type Verdict, VerdictSchema } from "./analyser.ts";
import { callerName, findClaims, mainClaim } from "./embedded/claims.ts";
import { factEvidenceOf, type SpeechShape } from "./embedded/facts.ts";
import { callerIdentityOf, keywordsOf, recommendationFor, redFlagsOf, titleOf } from "./embedded/report.ts";
import { categorise, score } from "./embedded/scoring.ts";
import { claimEvidenceOf, signalEvidenceOf } from "./embedded/speech.ts";
import { languageOf, summaryOf, tcpaCommentOf } from "./embedded/summary.ts";
import { sentencesOf, wordCount } from "./embedded/transcript.ts";

export const EMBEDDED_PROVIDER = "embedded";
export const EMBEDDED_MODEL = "rules-v1";
/** Changes whenever a rule, weight or word list changes, so stored verdicts say which rules made them. */
export const EMBEDDED_PROMPT_VERSION = "embedded-2026-11";

export function analyseEmbedded(input: AnalysisInput): Verdict {
  const sentences = sentencesOf(input);
  const shape: SpeechShape = {
    heard: sentences.length > 0,
    callerWords: wordCount(sentences, "caller"),
    calleeWords: wordCount(sentences, "callee"),
  };
  const claims = findClaims(sentences);
  const claim = mainClaim(claims.claims) ?? mainClaim(claims.references);
  const speech = [...claimEvidenceOf(claims), ...signalEvidenceOf(sentences)];
  const evidence = [...speech, ...factEvidenceOf(input.call, shape, speech)];
  const result = score(evidence, shape.heard);
  const category = categorise(result, evidence, claim, shape.heard);
  const language = languageOf(input, sentences);
  const english = language === "en";
  const summary = summaryOf({
    evidence,
    sentences,
    shape,
    claim,
    category,
    probability: result.probability,
    english,
    combos: result.combos,
  });
  return {
    title: titleOf(category, claim),
    probability: result.probability,
    category,
    entity: claim?.name ?? null,
    caller_identity: callerIdentityOf(callerName(sentences), claim, result.families),
    red_flags: redFlagsOf(evidence, result.probability),
    language,
    tcpa_comment: tcpaCommentOf(input.call, category, result.families, result.probability),
    summary,
    recommendation: recommendationFor(result.probability),
    keywords: keywordsOf(evidence),
  };
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
