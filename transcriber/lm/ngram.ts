// Backoff trigram language models: counted from sentences and Witten-Bell smoothed,
//   P(w | h) = (c(h w) + T(h) P(w | h')) / (c(h) + T(h))
// (T(h) the number of distinct words seen after h, h' the history without its first word, the
// unigrams interpolated with a uniform distribution over the vocabulary); mixed linearly with another
// model (mixModels); written as ARPA text. Each history's backoff weight is set Katz-style so its
// distribution sums to one over the n-grams the file keeps:
//   bow(h) = (1 - sum of P(w | h) kept) / (1 - sum of P(w | h') for the same w).
// Words are numbered in byte order and everything is written in that order, so the same input always
// gives the same bytes.

export const SENTENCE_START = "<s>";
export const SENTENCE_END = "</s>";

/** Word ids are packed into one number: up to 2^17 words, so a trigram key stays under 2^51. */
export const MAX_WORDS = 1 << 17;
export const pair = (v: number, w: number) => v * MAX_WORDS + w;
export const triple = (u: number, v: number, w: number) => (u * MAX_WORDS + v) * MAX_WORDS + w;
const first = (key: number) => Math.floor(key / MAX_WORDS);
const last = (key: number) => key % MAX_WORDS;

/** A backoff trigram model; probabilities and backoff weights are linear, not logarithms. */
export type BackoffModel = {
  /** The vocabulary: a word's id is its index (in byte order for toArpa). */
  words: string[];
  unigram: Float64Array;
  /** Backoff weight of each word as a history (NaN when no bigram starts with it). */
  unigramBackoff: Float64Array;
  bigram: Map<number, number>;
  bigramBackoff: Map<number, number>;
  trigram: Map<number, number>;
};

/** P(w | v) and P(w | u v), backing off as the model says; u = -1 for no second word of history. */
export function probability(model: BackoffModel, w: number, v: number, u = -1): number {
  if (u >= 0) {
    const p = model.trigram.get(triple(u, v, w));
    if (p !== undefined) return p;
    const bow = model.bigramBackoff.get(pair(u, v)) ?? 1;
    return bow * probability(model, w, v);
  }
  if (v < 0) return model.unigram[w]!;
  const p = model.bigram.get(pair(v, w));
  if (p !== undefined) return p;
  const bow = model.unigramBackoff[v]!;
  return (Number.isNaN(bow) ? 1 : bow) * model.unigram[w]!;
}

/** Sets every backoff weight from the n-grams kept, so that each history's distribution sums to one. */
export function setBackoffWeights(model: BackoffModel): void {
  const sums1 = new Map<number, [number, number]>();
  for (const [key, p] of model.bigram) {
    const h = first(key);
    const s = sums1.get(h) ?? [0, 0];
    s[0] += p;
    s[1] += model.unigram[last(key)]!;
    sums1.set(h, s);
  }
  model.unigramBackoff.fill(NaN);
  for (const [h, [seen, lower]] of sums1) model.unigramBackoff[h] = backoffWeight(seen, lower);
  const sums2 = new Map<number, [number, number]>();
  for (const [key, p] of model.trigram) {
    const h = first(key);
    const s = sums2.get(h) ?? [0, 0];
    s[0] += p;
    s[1] += probability(model, last(key), last(h));
    sums2.set(h, s);
  }
  model.bigramBackoff.clear();
  for (const [h, [seen, lower]] of sums2) model.bigramBackoff.set(h, backoffWeight(seen, lower));
}

/** Mass left over the lower order's mass for the same words; guarded against rounding at the edges. */
function backoffWeight(seen: number, lower: number): number {
  return Math.max(1e-12, 1 - seen) / Math.max(1e-12, 1 - lower);
}

/** Counts n-grams of sentences; a null word breaks the context (no n-gram spans it). */
export class NgramCounter {
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];
  private readonly unigrams = new Map<number, number>();
  private readonly bigrams = new Map<number, number>();
  private readonly trigrams = new Map<number, number>();

  constructor() {
    this.id(SENTENCE_START);
    this.id(SENTENCE_END);
  }

  private id(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      if (id >= MAX_WORDS) throw new Error(`more than ${MAX_WORDS} words: too many for the n-gram counter`);
      this.ids.set(word, id);
      this.words.push(word);
    }
    return id;
  }

  add(sentence: readonly (string | null)[]): void {
    const tokens = [0, ...sentence.map((w) => (w === null ? -1 : this.id(w))), 1];
    for (let i = 1; i < tokens.length; i++) {
      const w = tokens[i]!;
      if (w < 0) continue;
      bump(this.unigrams, w);
      const v = tokens[i - 1]!;
      if (v < 0) continue;
      bump(this.bigrams, pair(v, w));
      const u = i >= 2 ? tokens[i - 2]! : -1;
      if (u < 0) continue;
      bump(this.trigrams, triple(u, v, w));
    }
  }

  /** The Witten-Bell model of the counts, its words in byte order. */
  toModel(): BackoffModel {
    const words = [...this.words].sort(compare);
    const rank = new Int32Array(this.words.length);
    words.forEach((word, r) => (rank[this.ids.get(word)!] = r));
    const unigrams = remap(this.unigrams, (key) => rank[key]!);
    const bigrams = remap(this.bigrams, (key) => pair(rank[first(key)]!, rank[last(key)]!));
    const trigrams = remap(this.trigrams, (key) => triple(rank[first(first(key))]!, rank[last(first(key))]!, rank[last(key)]!));

    const start = words.indexOf(SENTENCE_START);
    let total = 0;
    for (const c of unigrams.values()) total += c;
    const types = unigrams.size;
    const unigram = new Float64Array(words.length);
    for (let id = 0; id < words.length; id++) {
      if (id !== start) unigram[id] = ((unigrams.get(id) ?? 0) + types / (words.length - 1)) / (total + types);
    }
    const model: BackoffModel = {
      words,
      unigram,
      unigramBackoff: new Float64Array(words.length),
      bigram: new Map(),
      bigramBackoff: new Map(),
      trigram: new Map(),
    };
    for (const [h, followers] of groupByHistory(bigrams)) {
      const [c, t] = countAndTypes(followers);
      for (const [w, n] of followers) model.bigram.set(pair(h, w), (n + t * unigram[w]!) / (c + t));
    }
    for (const [h, followers] of groupByHistory(trigrams)) {
      const [c, t] = countAndTypes(followers);
      for (const [w, n] of followers) model.trigram.set(h * MAX_WORDS + w, (n + t * model.bigram.get(pair(last(h), w))!) / (c + t));
    }
    setBackoffWeights(model);
    return model;
  }
}

/** The ARPA text of a model. */
export function toArpa(model: BackoffModel): string {
  const { words } = model;
  const start = words.indexOf(SENTENCE_START);
  const bigrams = Float64Array.from(model.bigram.keys()).sort();
  const trigrams = Float64Array.from(model.trigram.keys()).sort();
  const out: string[] = [
    "\\data\\",
    `ngram 1=${words.length}`,
    `ngram 2=${bigrams.length}`,
    `ngram 3=${trigrams.length}`,
    "",
    "\\1-grams:",
  ];
  for (let id = 0; id < words.length; id++) {
    const prob = id === start ? "-99.000000" : log10(model.unigram[id]!);
    const bow = model.unigramBackoff[id]!;
    out.push(Number.isNaN(bow) ? `${prob}\t${words[id]}` : `${prob}\t${words[id]}\t${log10(bow)}`);
  }
  out.push("", "\\2-grams:");
  for (const key of bigrams) {
    const text = `${log10(model.bigram.get(key)!)}\t${words[first(key)]} ${words[last(key)]}`;
    const bow = model.bigramBackoff.get(key);
    out.push(bow === undefined ? text : `${text}\t${log10(bow)}`);
  }
  out.push("", "\\3-grams:");
  for (const key of trigrams) {
    const h = first(key);
    out.push(`${log10(model.trigram.get(key)!)}\t${words[first(h)]} ${words[last(h)]} ${words[last(key)]}`);
  }
  out.push("", "\\end\\", "");
  return out.join("\n");
}

/**
 * The linear mixture weight * P_a + (1 - weight) * P_b over a vocabulary: every n-gram either model
 * holds whose words are all in the vocabulary gets the mixed probability, each model backing off
 * where it lacks the n-gram (and dropping history words it does not know); b's probabilities are
 * scaled by 1 / (b's unigram mass inside the vocabulary). a's words must all be in the vocabulary.
 */
export function mixModels(a: BackoffModel, b: BackoffModel, weight: number, vocabulary: Iterable<string>): BackoffModel {
  const words = [...new Set([...a.words, ...vocabulary])].sort(compare);
  const index = new Map(words.map((w, i) => [w, i]));
  const ids = (model: BackoffModel) => {
    const of = new Map(model.words.map((w, i) => [w, i]));
    return Int32Array.from(words, (w) => of.get(w) ?? -1);
  };
  const toA = ids(a);
  const toB = ids(b);
  const start = index.get(SENTENCE_START)!;
  let z = 0;
  for (let i = 0; i < words.length; i++) if (i !== start && toB[i]! >= 0) z += b.unigram[toB[i]!]!;
  const p = (model: BackoffModel, to: Int32Array, w: number, v: number, u: number) => {
    if (to[w]! < 0) return 0;
    if (v >= 0 && to[v]! < 0) return probability(model, to[w]!, -1);
    return probability(model, to[w]!, v < 0 ? -1 : to[v]!, u < 0 || to[u]! < 0 ? -1 : to[u]!);
  };
  const mix = (w: number, v = -1, u = -1) => weight * p(a, toA, w, v, u) + ((1 - weight) * p(b, toB, w, v, u)) / z;

  const model: BackoffModel = {
    words,
    unigram: new Float64Array(words.length),
    unigramBackoff: new Float64Array(words.length),
    bigram: new Map(),
    bigramBackoff: new Map(),
    trigram: new Map(),
  };
  for (let w = 0; w < words.length; w++) if (w !== start) model.unigram[w] = mix(w);
  const from = (source: BackoffModel) => Int32Array.from(source.words, (w) => index.get(w) ?? -1);
  for (const source of [a, b]) {
    const map = from(source);
    for (const key of source.bigram.keys()) {
      const v = map[first(key)]!;
      const w = map[last(key)]!;
      if (v >= 0 && w >= 0 && !model.bigram.has(pair(v, w))) model.bigram.set(pair(v, w), mix(w, v));
    }
    for (const key of source.trigram.keys()) {
      const u = map[first(first(key))]!;
      const v = map[last(first(key))]!;
      const w = map[last(key)]!;
      if (u >= 0 && v >= 0 && w >= 0 && !model.trigram.has(triple(u, v, w))) model.trigram.set(triple(u, v, w), mix(w, v, u));
    }
  }
  setBackoffWeights(model);
  return model;
}

function bump(map: Map<number, number>, key: number): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function remap(counts: Map<number, number>, key: (old: number) => number): Map<number, number> {
  const out = new Map<number, number>();
  for (const [k, n] of counts) out.set(key(k), n);
  return out;
}

function groupByHistory(counts: Map<number, number>): Map<number, [number, number][]> {
  const groups = new Map<number, [number, number][]>();
  // In key order, so that sums come out the same whatever order the corpus was read in.
  for (const key of Float64Array.from(counts.keys()).sort()) {
    const h = first(key);
    let list = groups.get(h);
    if (!list) groups.set(h, (list = []));
    list.push([last(key), counts.get(key)!]);
  }
  return groups;
}

function countAndTypes(followers: [number, number][]): [number, number] {
  let c = 0;
  for (const [, n] of followers) c += n;
  return [c, followers.length];
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const log10 = (p: number) => Math.log10(p).toFixed(6);
