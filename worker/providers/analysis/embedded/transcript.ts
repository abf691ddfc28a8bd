// The transcript as sentences in time order, matched in lower case, quoted as said.
import type { AnalysisInput } from "../analyser.ts";
import type { Sentence, Speaker } from "./types.ts";

const QUOTE_MAX = 160;

/** A negator up to three words before a match: "we will never ask you to read out your code". */
const NEGATED = /(?:\bnever|\bnot|n't|\bno one|\bnobody|\bno need to)\s+(?:[\w']+\s+){0,3}$/;

export function lowerForMatching(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[\u201c\u201d]/g, '"');
}

function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((part) => part.replace(/\s+/g, " ").trim())
    .filter((part) => /[a-z0-9]/i.test(part));
}

/** A transcript without segments is one stretch of speech from a speaker we cannot name. */
export function sentencesOf(input: AnalysisInput): Sentence[] {
  const parts: { speaker: Speaker; text: string }[] = input.segments.length
    ? [...input.segments].sort((a, b) => a.start - b.start)
    : [{ speaker: "unknown", text: input.text }];
  const sentences: Sentence[] = [];
  for (const part of parts) {
    for (const text of splitSentences(part.text)) {
      sentences.push({ speaker: part.speaker, text, lower: lowerForMatching(text), order: sentences.length });
    }
  }
  return sentences;
}

export function wordCount(sentences: Sentence[], speaker?: Speaker): number {
  return sentences.filter((s) => !speaker || s.speaker === speaker).reduce((n, s) => n + s.lower.split(/\s+/).length, 0);
}

export function isNegated(lower: string, index: number): boolean {
  return NEGATED.test(lower.slice(Math.max(0, index - 50), index));
}

/** The sentence as said, or a window of it around the match when it is long. */
export function quoteOf(sentence: Sentence, index: number): string {
  const text = sentence.text.replace(/\.$/, "");
  if (text.length <= QUOTE_MAX) return text;
  const aligned = sentence.lower.length === sentence.text.length;
  const start = aligned ? Math.max(0, Math.min(index - 40, text.length - QUOTE_MAX)) : 0;
  const window = text.slice(start, start + QUOTE_MAX).trim();
  return `${start > 0 ? "…" : ""}${window}${start + QUOTE_MAX < text.length ? "…" : ""}`;
}
