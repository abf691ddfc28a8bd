// The learned part of the embedded analyser: logistic regression over features.ts's features,
// its weights a committed file (model-weights.json, made by `npm run train:analyser` from the
// repository's data) and its output calibrated (Platt scaling fitted on calls the model did not
// see while training), so that `probability` is the observed share of scams among calls given it.
import committed from "./model-weights.json" with { type: "json" };
import { NAMED_FEATURES, NGRAM_BUCKETS, type SparseVector } from "./features.ts";

export type ModelFile = {
  /** Written into stored verdicts' model name: which weights made them. */
  version: string;
  buckets: number;
  /** The hashed words' weights as little-endian int16, base64; each times `scale`. */
  ngrams: string;
  scale: number;
  named: Record<string, number>;
  bias: number;
  /** probability = sigmoid(a × score + b) */
  calibration: { a: number; b: number };
};

export type Model = { version: string; weights: Float64Array; bias: number; calibration: { a: number; b: number } };

export function modelFromFile(file: ModelFile): Model {
  if (file.buckets !== NGRAM_BUCKETS) throw new Error(`model has ${file.buckets} buckets, features make ${NGRAM_BUCKETS}`);
  const weights = new Float64Array(NGRAM_BUCKETS + NAMED_FEATURES.length);
  const bytes = Uint8Array.from(atob(file.ngrams), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < NGRAM_BUCKETS; i++) weights[i] = view.getInt16(i * 2, true) * file.scale;
  NAMED_FEATURES.forEach((name, i) => (weights[NGRAM_BUCKETS + i] = file.named[name] ?? 0));
  return { version: file.version, weights, bias: file.bias, calibration: file.calibration };
}

export function modelToFile(model: Model): ModelFile {
  let max = 0;
  for (let i = 0; i < NGRAM_BUCKETS; i++) max = Math.max(max, Math.abs(model.weights[i]!));
  const scale = max / 32767 || 1;
  const bytes = new Uint8Array(NGRAM_BUCKETS * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < NGRAM_BUCKETS; i++) view.setInt16(i * 2, Math.round(model.weights[i]! / scale), true);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  const named: Record<string, number> = {};
  NAMED_FEATURES.forEach((name, i) => (named[name] = round(model.weights[NGRAM_BUCKETS + i]!)));
  return {
    version: model.version,
    buckets: NGRAM_BUCKETS,
    ngrams: btoa(binary),
    scale,
    named,
    bias: round(model.bias),
    calibration: { a: round(model.calibration.a), b: round(model.calibration.b) },
  };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** The model's raw score: the log-odds before calibration. */
export function scoreOf(model: Model, x: SparseVector): number {
  let z = model.bias;
  for (let k = 0; k < x.indices.length; k++) z += model.weights[x.indices[k]!]! * x.values[k]!;
  return z;
}

/** What one feature added to the score, for explaining a verdict. */
export function contributionOf(model: Model, name: string): number {
  const i = NAMED_FEATURES.indexOf(name);
  return i < 0 ? 0 : model.weights[NGRAM_BUCKETS + i]!;
}

/** The calibrated log-odds of fraud: sigmoid of it is the probability. */
export function calibratedLogOdds(model: Model, x: SparseVector): number {
  return model.calibration.a * scoreOf(model, x) + model.calibration.b;
}

export const COMMITTED_MODEL: Model = modelFromFile(committed as ModelFile);
