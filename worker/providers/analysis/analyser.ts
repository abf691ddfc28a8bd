// Call analysis behind one interface: a transcript and the call's facts in, a verdict out.
// Adapters: the embedded analyser (rules and a lexicon, nothing outside the Worker), the Workers
// AI binding, and any OpenAI-compatible chat URL. Which tier uses which is configuration; only the
// tier's name and price ever leave the API.
import { z } from "zod";
import { RECOMMENDATIONS } from "../../../schema/enums.ts";
import type { ScreeningFacts } from "./screening.ts";

/** One speaker's stretch of speech, times in seconds from the answer. */
export type Segment = { speaker: "caller" | "callee"; start: number; end: number; text: string };

export type DtmfDigit = { t: number; digit: string; channel: string };

/** What the analyser may know of a call besides its words. */
export type CallFacts = {
  ani: string | null;
  dialed: string | null;
  destCountry: string | null;
  /** Seconds from answer to hang-up; null when the call was never answered. */
  billsec: number | null;
  durationSec: number | null;
  answered: boolean;
  hangupBy: string | null;
  dtmf: DtmfDigit[];
  /** What screening found before answer (STIR/SHAKEN, number checks, velocity); absent when the call has none. */
  screening?: ScreeningFacts | null;
};

export type AnalysisInput = {
  /** The whole transcript, speakers interleaved in time order. */
  text: string;
  segments: Segment[];
  language: string | null;
  call: CallFacts;
};

/** The verdict every adapter must produce; an LLM's JSON output is parsed with this, strictly. */
export const VerdictSchema = z.strictObject({
  title: z.string().max(200).nullable(),
  probability: z.number().int().min(0).max(100),
  category: z.string().regex(/^[a-z][a-z0-9_]*$/, "category must be snake_case"),
  entity: z.string().max(200).nullable(),
  caller_identity: z.string().max(200).nullable(),
  red_flags: z.array(z.string().max(500)).max(20).nullable(),
  language: z.string().max(20).nullable(),
  tcpa_comment: z.string().max(500).nullable(),
  summary: z.string().max(2000).nullable(),
  recommendation: z.enum(RECOMMENDATIONS),
  keywords: z.array(z.string().max(100)).max(30).nullable(),
});

export type Verdict = z.infer<typeof VerdictSchema>;

export type AnalysisResult = {
  verdict: Verdict;
  provider: string;
  model: string;
  promptVersion: string;
  inputTokens: number;
  outputTokens: number;
  /** What producing it cost us (not the fee charged to the account). */
  costMicros: number;
  latencyMs: number;
};

export interface Analyser {
  analyse(input: AnalysisInput): Promise<AnalysisResult>;
}
