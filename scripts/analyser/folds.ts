// Grouped cross-validation: the groups dealt into folds, each fold scored by a model trained (and
// calibrated) on the other folds alone. Spoken versions of real calls go with their call's group.
import type { Verdict } from "../../worker/providers/analysis/analyser.ts";
import { analyseEmbedded } from "../../worker/providers/analysis/embedded.ts";
import type { Example } from "./corpus.ts";
import { rowsOf } from "./dataset.ts";
import { groupFolds, train } from "./learn.ts";

export const OUTER_FOLDS = 8;

/** The group a spoken transcript's original call belongs to. */
const trainingGroupOf = (e: Example) => (e.corpus.startsWith("spoken") ? e.group.replace(/^spoken:/, "") : e.group);

export function crossValidated(examples: Example[], spoken: Example[]): { example: Example; verdict: Verdict }[] {
  const folds = groupFolds(
    examples.map((e) => e.group),
    OUTER_FOLDS,
  );
  const out: { example: Example; verdict: Verdict }[] = [];
  for (let f = 0; f < OUTER_FOLDS; f++) {
    const model = train(rowsOf(examples.filter((e) => folds.get(e.group) !== f)), `cv-${f}`);
    for (const example of [...examples, ...spoken].filter((e) => folds.get(trainingGroupOf(e)) === f))
      out.push({ example, verdict: analyseEmbedded(example.input, model) });
    process.stderr.write(`fold ${f + 1}/${OUTER_FOLDS} scored\n`);
  }
  return out;
}
