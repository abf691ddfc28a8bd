// What was heard, as evidence: each signal's matches, the organisations claimed, and warnings
// ("we will never ask for your PIN") where an ask is negated.
import { type Claims, entityPhrase } from "./claims.ts";
import { KIND_CATEGORY } from "./lexicon.ts";
import { re } from "./pattern.ts";
import { ASK_SIGNALS } from "./signals-asks.ts";
import { CONTEXT_SIGNALS } from "./signals-context.ts";
import { STORY_SIGNALS } from "./signals-stories.ts";
import { isNegated, quoteOf } from "./transcript.ts";
import type { EntityClaim, EntityKind, Evidence, Sentence, Signal, Speaker } from "./types.ts";

export const SIGNALS: Signal[] = [...ASK_SIGNALS, ...CONTEXT_SIGNALS, ...STORY_SIGNALS];

const CLAIM_WEIGHT: Record<EntityKind, number> = {
  tax: 15,
  police: 15,
  government: 15,
  bank: 12,
  card: 12,
  tech: 12,
  carrier: 10,
  utility: 10,
  delivery: 8,
};
const REFERENCE_WEIGHT = 6;
const WARNING_WEIGHT = -6;

/**
 * The caller placed the call and, in a recorded scam, is usually the scammer. The callee's words
 * count for less, and for very little when a genuine organisation says the same (an agent asking a
 * customer who rang in to confirm a code); a transcript without speakers counts almost fully.
 */
export function speakerFactor(speaker: Speaker, genuine: boolean): number {
  if (speaker === "caller") return 1;
  if (speaker === "unknown") return 0.9;
  return genuine ? 0.15 : 0.35;
}

function signalEvidence(signal: Signal, sentence: Sentence, index: number): Evidence {
  return {
    id: signal.id,
    family: signal.family,
    label: signal.label,
    keyword: signal.keyword,
    points: signal.weight * speakerFactor(sentence.speaker, signal.genuine ?? false),
    speaker: sentence.speaker,
    quote: quoteOf(sentence, index),
    detail: null,
    order: sentence.order,
    hint: signal.hint ?? null,
  };
}

function warningEvidence(sentence: Sentence, index: number): Evidence {
  return {
    id: "warns_never_share",
    family: "mitigation",
    label: "Warns never to hand over codes, details or money",
    keyword: null,
    points: WARNING_WEIGHT * speakerFactor(sentence.speaker, false),
    speaker: sentence.speaker,
    quote: quoteOf(sentence, index),
    detail: null,
    order: sentence.order,
    hint: null,
  };
}

function firstMatch(signal: Signal, lower: string): RegExpExecArray | null {
  for (const pattern of signal.patterns) {
    const match = pattern.exec(lower);
    if (match) return match;
  }
  return null;
}

const OTP_ASK = SIGNALS.find((s) => s.id === "otp_ask") as Signal;
/** "Read me the code": once a code sent by text has come up, "the code" means that one. */
const CODE_FOLLOW_UP = re`\b(?:read|tell|give|say|repeat|send|confirm|what's|what is)\s+(?:me |us )?
  (?:the|that|this) (?:code|number|digits|numbers)\b|\b(?:read|give|tell) (?:it|them) (?:to me|back to me|out)\b`;

function codeFollowUps(sentences: Sentence[], evidence: Evidence[]): Evidence[] {
  const first = evidence.find((e) => e.family === "otp")?.order;
  if (first === undefined) return [];
  const asked = new Set(evidence.filter((e) => e.id === OTP_ASK.id).map((e) => e.order));
  const out: Evidence[] = [];
  for (const sentence of sentences) {
    if (sentence.order < first || asked.has(sentence.order)) continue;
    const match = CODE_FOLLOW_UP.exec(sentence.lower);
    if (!match) continue;
    const negated = isNegated(sentence.lower, match.index);
    out.push(negated ? warningEvidence(sentence, match.index) : signalEvidence(OTP_ASK, sentence, match.index));
  }
  return out;
}

export function signalEvidenceOf(sentences: Sentence[]): Evidence[] {
  const evidence: Evidence[] = [];
  for (const sentence of sentences) {
    for (const signal of SIGNALS) {
      const match = firstMatch(signal, sentence.lower);
      if (!match) continue;
      const negated = signal.negatable && isNegated(sentence.lower, match.index);
      evidence.push(negated ? warningEvidence(sentence, match.index) : signalEvidence(signal, sentence, match.index));
    }
  }
  return [...evidence, ...codeFollowUps(sentences, evidence)];
}

function claimEvidence(claim: EntityClaim, reference: boolean): Evidence {
  const weight = reference ? REFERENCE_WEIGHT : CLAIM_WEIGHT[claim.kind];
  return {
    id: `${reference ? "reference" : "claim"}_${claim.name}`,
    family: reference ? "reference" : "authority",
    label: reference ? `Refers to the callee's ${claim.name} account` : `Claims to speak for ${entityPhrase(claim)}`,
    keyword: claim.name,
    points: weight * speakerFactor(claim.speaker, true),
    speaker: claim.speaker,
    quote: claim.quote,
    detail: null,
    order: claim.order,
    hint: KIND_CATEGORY[claim.kind],
  };
}

export function claimEvidenceOf({ claims, references }: Claims): Evidence[] {
  return [...claims.map((c) => claimEvidence(c, false)), ...references.map((c) => claimEvidence(c, true))];
}
