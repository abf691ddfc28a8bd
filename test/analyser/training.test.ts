// The committed model is what `npm run train:analyser` makes from the committed data: anyone can
// rebuild it from the repository alone, and nobody can change the weights without the data and
// the script that explain them. Also: the learner finds what it is given, and the file stays small.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { trainCommittedModel, WEIGHTS_PATH } from "../../scripts/analyser/train.ts";
import { fitWeights, type TrainingRow } from "../../scripts/analyser/learn.ts";
import { NGRAM_BUCKETS } from "../../worker/providers/analysis/embedded/features.ts";
import { scoreOf } from "../../worker/providers/analysis/embedded/model.ts";

describe("the analyser's model", () => {
  it("is exactly what train:analyser makes from the committed data", () => {
    const committed = JSON.parse(readFileSync(WEIGHTS_PATH, "utf8"));
    expect(trainCommittedModel()).toEqual(committed);
  }, 120_000);

  it("is a file of at most 1 MB", () => {
    expect(readFileSync(WEIGHTS_PATH).length).toBeLessThanOrEqual(1_000_000);
  });

  it("learns a feature that separates the labels, and ignores one that does not", () => {
    const signal = NGRAM_BUCKETS; // the first named feature
    const noise = NGRAM_BUCKETS + 1;
    const rows: TrainingRow[] = Array.from({ length: 200 }, (_, i) => {
      const y = (i % 2) as 0 | 1;
      const indices = [...(y ? [signal] : []), ...(i % 4 < 2 ? [noise] : [])];
      return { x: { indices, values: indices.map(() => 1) }, y, weight: 1, group: `g${i % 5}` };
    });
    const model = fitWeights(rows);
    expect(model.weights[signal]).toBeGreaterThan(1);
    expect(Math.abs(model.weights[noise]!)).toBeLessThan(model.weights[signal]! / 3);
    expect(scoreOf(model, { indices: [signal], values: [1] })).toBeGreaterThan(scoreOf(model, { indices: [], values: [] }));
  });
});
