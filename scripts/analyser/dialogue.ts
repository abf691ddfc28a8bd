// A call's words as the pipeline hands them to an analyser: a dialogue's turns timed at a speaking
// pace, or a transcript without speaker marks, on an answered call whose facts say nothing either
// way. Pure (no Node built-ins), so the Worker tests' corpus uses it too.
import type { AnalysisInput, CallFacts, Segment } from "../../worker/providers/analysis/analyser.ts";

export type Turn = { speaker: "caller" | "callee"; text: string };

const WORDS_PER_SECOND = 2.5;
const PAUSE_SECONDS = 0.6;

/** Times as a transcriber gives them: each turn after the last, at a speaking pace. */
export function segmentsOf(turns: Turn[]): Segment[] {
  let t = 0;
  return turns.map(({ speaker, text }) => {
    const start = t;
    const end = start + text.split(/\s+/).length / WORDS_PER_SECOND;
    t = end + PAUSE_SECONDS;
    return { speaker, start: Math.round(start * 10) / 10, end: Math.round(end * 10) / 10, text };
  });
}

/** An answered North American call of `seconds`, hung up by the caller. */
function answeredCall(seconds: number): CallFacts {
  return {
    ani: "+14155550123",
    dialed: "+12125550188",
    destCountry: "US",
    billsec: seconds,
    durationSec: seconds + 6,
    answered: true,
    hangupBy: "caller",
    dtmf: [],
  };
}

export function dialogueInput(turns: Turn[], call: Partial<CallFacts> = {}): AnalysisInput {
  const segments = segmentsOf(turns);
  const talk = Math.ceil(segments[segments.length - 1]?.end ?? 0);
  return { text: segments.map((s) => s.text).join("\n"), segments, language: null, call: { ...answeredCall(talk), ...call } };
}

/** A transcript with no speaker marks, as real recordings' transcripts come. */
export function plainInput(text: string): AnalysisInput {
  const seconds = Math.ceil(text.split(/\s+/).length / WORDS_PER_SECOND);
  return { text, segments: [], language: null, call: answeredCall(seconds) };
}
