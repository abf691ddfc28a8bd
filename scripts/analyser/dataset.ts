// Examples as the learner sees them: features from the analyser's own observe(), a label, a weight
// and the group no split may cut. Real calls weigh more than synthetic dialogues (they are what the
// analyser meets), and the two labels weigh the same in total.
import type { AnalysisInput, Segment } from "../../worker/providers/analysis/analyser.ts";
import type { SparseVector } from "../../worker/providers/analysis/embedded/features.ts";
import { observe } from "../../worker/providers/analysis/embedded.ts";
import type { Example } from "./corpus.ts";
import { HYPER, type TrainingRow } from "./learn.ts";

const weightOf = (corpus: string) =>
  corpus === "ftc" || corpus === "youtube" ? HYPER.realWeight : corpus.startsWith("extra") ? HYPER.extraWeight : 1;

/** A reply no recorded message contains: the text is an unmarked conversation, not a one-sided message. */
const REPLY = /\b(?:yes|yeah|okay|ok|wait|what|hmm|uh|um|i don't|i didn't|how do i)\b/i;

/**
 * Each call in both forms the pipeline hands the analyser, half the weight each: a dialogue with
 * its speakers and as one unmarked text (real transcripts come unmarked; without this the model
 * learns that an unmarked transcript is a scam), and a one-sided message unmarked and as the
 * pipeline marks it (the caller's channel speaking, the callee's saying hello), which is how a
 * robocall reaches the Worker.
 */
function bothForms(e: Example): { input: AnalysisInput; share: number }[] {
  const { input } = e;
  if (input.segments.length) {
    return [
      { input, share: 0.5 },
      { input: { ...input, segments: [] }, share: 0.5 },
    ];
  }
  if (REPLY.test(input.text)) return [{ input, share: 1 }];
  const words = input.text.split(/\s+/).length;
  const segments: Segment[] = [
    { speaker: "callee", start: 0, end: 1, text: "Hello?" },
    { speaker: "caller", start: 1, end: 1 + words / 2.5, text: input.text },
  ];
  return [
    { input, share: 0.5 },
    { input: { ...input, segments, text: `Hello?\n${input.text}` }, share: 0.5 },
  ];
}

/** Features depend on the example alone: computed once per run, however many folds reuse them. */
const featureCache = new WeakMap<Example, SparseVector[]>();
function vectorsOf(e: Example): SparseVector[] {
  let vectors = featureCache.get(e);
  if (!vectors) featureCache.set(e, (vectors = bothForms(e).map(({ input }) => observe(input).features.vector)));
  return vectors;
}

export function rowsOf(examples: Example[]): TrainingRow[] {
  const rows: TrainingRow[] = examples.flatMap((e) =>
    bothForms(e).map(({ share }, i) => ({
      x: vectorsOf(e)[i]!,
      y: e.label === "scam" ? (1 as const) : (0 as const),
      weight: weightOf(e.corpus) * share,
      group: e.group,
    })),
  );
  const total = (y: 0 | 1) => rows.filter((r) => r.y === y).reduce((s, r) => s + r.weight, 0);
  const [benign, scam] = [total(0), total(1)];
  for (const row of rows) row.weight *= row.y ? (benign + scam) / (2 * scam) : (benign + scam) / (2 * benign);
  return rows;
}
