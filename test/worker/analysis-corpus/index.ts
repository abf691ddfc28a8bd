// The analyser's corpus: scam scripts of many kinds and ordinary calls that mention the same things,
// turned into the AnalysisInput the pipeline would give an analyser.
import type { AnalysisInput, CallFacts, Segment } from "../../../worker/providers/analysis/analyser.ts";
import { LEGIT_BUSINESS } from "./legit-business.ts";
import { LEGIT_MORE } from "./legit-more.ts";
import { LEGIT_PERSONAL } from "./legit-personal.ts";
import { SCAM_CONVERSATIONS } from "./scam-conversations.ts";
import { SCAM_MORE } from "./scam-more.ts";
import { SCAM_ROBOCALLS } from "./scam-robocalls.ts";
import type { CorpusEntry } from "./types.ts";

export type { CorpusEntry } from "./types.ts";

export const CORPUS: CorpusEntry[] = [
  ...SCAM_ROBOCALLS,
  ...SCAM_CONVERSATIONS,
  ...SCAM_MORE,
  ...LEGIT_BUSINESS,
  ...LEGIT_PERSONAL,
  ...LEGIT_MORE,
];

const WORDS_PER_SECOND = 2.5;
const PAUSE_SECONDS = 0.6;

/** Times as a transcriber would give them: each turn after the last, at a speaking pace. */
export function segmentsOf(turns: CorpusEntry["segments"]): Segment[] {
  let t = 0;
  return turns.map(({ speaker, text }) => {
    const start = t;
    const end = start + text.split(/\s+/).length / WORDS_PER_SECOND;
    t = end + PAUSE_SECONDS;
    return { speaker, start: Math.round(start * 10) / 10, end: Math.round(end * 10) / 10, text };
  });
}

export function inputOf(entry: Pick<CorpusEntry, "segments" | "call">): AnalysisInput {
  const segments = segmentsOf(entry.segments);
  const talk = Math.ceil(segments[segments.length - 1]?.end ?? 0);
  const call: CallFacts = {
    ani: "+14155550123",
    dialed: "+12125550188",
    destCountry: "US",
    billsec: talk,
    durationSec: talk + 6,
    answered: true,
    hangupBy: "caller",
    dtmf: [],
    ...entry.call,
  };
  return { text: segments.map((s) => s.text).join("\n"), segments, language: null, call };
}
