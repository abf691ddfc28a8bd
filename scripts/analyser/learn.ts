// Training the embedded analyser's model: L2-regularised logistic regression by AdaGrad over the
// features of features.ts, then Platt scaling fitted on out-of-fold scores (grouped folds), so the
// stated probability holds on calls like none the model trained on. Deterministic: a fixed order of
// examples per epoch from a seeded generator, plain double arithmetic.
import type { SparseVector } from "../../worker/providers/analysis/embedded/features.ts";
import { FEATURE_COUNT, NGRAM_BUCKETS } from "../../worker/providers/analysis/embedded/features.ts";
import { type Model, scoreOf, sigmoid } from "../../worker/providers/analysis/embedded/model.ts";

export type TrainingRow = { x: SparseVector; y: 0 | 1; weight: number; group: string };

export const HYPER = {
  epochs: 15,
  learningRate: 0.3,
  /** L2 on the hashed words, strong: they are the part that overfits the synthetic dialogues' style. */
  l2Words: 3e-5,
  /** L2 on the named features (cues, pairs, rules, shape). */
  l2Named: 3e-4,
  calibrationFolds: 5,
  seed: 20261127,
  /** How much a real call weighs against a synthetic dialogue. */
  realWeight: 4,
  extraWeight: 2,
  // Experiments: ANALYSER_HYPER='{"l2Words":1e-3}' npm run eval:analyser
  ...(JSON.parse(process.env.ANALYSER_HYPER ?? "{}") as Record<string, number>),
};

function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The weights alone, uncalibrated (calibration a = 1, b = 0). */
export function fitWeights(rows: TrainingRow[], hyper = HYPER): Model {
  const weights = new Float64Array(FEATURE_COUNT);
  const squares = new Float64Array(FEATURE_COUNT).fill(1e-8);
  let bias = 0;
  let biasSquares = 1e-8;
  const total = rows.reduce((s, r) => s + r.weight, 0);
  const model: Model = { version: "", weights, bias, calibration: { a: 1, b: 0 } };
  for (let epoch = 0; epoch < hyper.epochs; epoch++) {
    for (const i of shuffled(rows.length, hyper.seed + epoch)) {
      const row = rows[i]!;
      model.bias = bias;
      const error = (sigmoid(scoreOf(model, row.x)) - row.y) * row.weight * (rows.length / total);
      for (let k = 0; k < row.x.indices.length; k++) {
        const j = row.x.indices[k]!;
        const l2 = j < NGRAM_BUCKETS ? hyper.l2Words : hyper.l2Named;
        const g = error * row.x.values[k]! + l2 * weights[j]!;
        squares[j]! += g * g;
        weights[j]! -= (hyper.learningRate * g) / Math.sqrt(squares[j]!);
      }
      biasSquares += error * error;
      bias -= (hyper.learningRate * error) / Math.sqrt(biasSquares);
    }
  }
  model.bias = bias;
  return model;
}

/** Platt scaling: a and b of sigmoid(a × score + b) by Newton's method on the log-loss. */
export function fitPlatt(scores: number[], labels: (0 | 1)[], weights: number[]): { a: number; b: number } {
  let a = 1;
  let b = 0;
  for (let iter = 0; iter < 50; iter++) {
    let ga = 0,
      gb = 0,
      haa = 1e-6,
      hab = 0,
      hbb = 1e-6;
    for (let i = 0; i < scores.length; i++) {
      const p = sigmoid(a * scores[i]! + b);
      const w = weights[i]!;
      const e = (p - labels[i]!) * w;
      const h = p * (1 - p) * w;
      ga += e * scores[i]!;
      gb += e;
      haa += h * scores[i]! * scores[i]!;
      hab += h * scores[i]!;
      hbb += h;
    }
    const det = haa * hbb - hab * hab;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}

/** Groups dealt into k folds in a fixed order, so a group's calls are never split. */
export function groupFolds(groups: string[], k: number): Map<string, number> {
  const unique = [...new Set(groups)].sort();
  const folds = new Map<string, number>();
  unique.forEach((g, i) => folds.set(g, i % k));
  return folds;
}

/** The weights on every row, calibrated on scores each row got from a model that did not train on its group. */
export function train(rows: TrainingRow[], version: string, hyper = HYPER): Model {
  const folds = groupFolds(
    rows.map((r) => r.group),
    hyper.calibrationFolds,
  );
  const scores = new Array<number>(rows.length);
  for (let f = 0; f < hyper.calibrationFolds; f++) {
    const inFold = rows.map((r) => folds.get(r.group) === f);
    const model = fitWeights(
      rows.filter((_, i) => !inFold[i]),
      hyper,
    );
    rows.forEach((r, i) => inFold[i] && (scores[i] = scoreOf(model, r.x)));
  }
  const model = fitWeights(rows, hyper);
  model.version = version;
  model.calibration = fitPlatt(
    scores,
    rows.map((r) => r.y),
    rows.map((r) => r.weight),
  );
  return model;
}
