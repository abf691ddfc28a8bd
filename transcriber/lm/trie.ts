// Reads a sphinxbase trie binary language model (the en-us.lm.bin of Debian's pocketsphinx-en-us),
// whose n-grams Debian's sphinx_lm_convert cannot write out as ARPA (it stops on an assertion after
// the unigrams). The layout, from sphinxbase's ngram_model_trie.c, lm_trie.c and lm_trie_quant.c:
//   "Trie Language Model", order (uint8), counts (uint32 each), a uint32, the quantisation tables
//   (floats: per middle order 2^16 probabilities and 2^16 backoffs, then 2^16 for the last order),
//   counts[0] + 1 unigrams {prob float, backoff float, next uint32}, the bit-packed middle orders
//   {word, backoff index 16 bits, probability index 16 bits, next}, the last order {word, probability
//   index}, then the words (int32 byte length, NUL-terminated strings). Little-endian, as written on x86.
// The trie is kept backwards: under a unigram w are the words v before it (the bigram "v w"), under
// those the words u before them ("u v w"); each node holds its n-gram's probability and backoff.
// Values are in the decoder's log base (1.0001): log10 = value * log10(1.0001).

import type { BackoffModel } from "./ngram.ts";
import { pair, triple } from "./ngram.ts";

const HEADER = "Trie Language Model";
const LOG10_OF_BASE = Math.log10(1.0001);

export type TrieModel = {
  order: number;
  words: string[];
  /** log10 probability and backoff of each word, by word index. */
  unigramProb: Float64Array;
  unigramBackoff: Float64Array;
  /** Calls back each n-gram above the unigrams: word indices, log10 probability, log10 backoff (0 for the last order). */
  forEachNgram(callback: (words: number[], prob: number, backoff: number) => void): void;
};

const requiredBits = (max: number) => (max === 0 ? 0 : Math.floor(Math.log2(max)) + 1);

export function readTrieModel(file: Uint8Array): TrieModel {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const header = new TextDecoder().decode(file.subarray(0, HEADER.length));
  if (header !== HEADER) throw new Error("not a sphinxbase trie language model");
  let at = HEADER.length;
  const order = file[at++]!;
  if (order < 2 || order > 3) throw new Error(`a ${order}-gram trie model is not supported`);
  const counts: number[] = [];
  for (let i = 0; i < order; i++, at += 4) counts.push(view.getUint32(at, true));
  at += 4; // the former quantisation type
  const table = (length: number) => {
    const values = new Float64Array(length);
    for (let i = 0; i < length; i++, at += 4) values[i] = view.getFloat32(at, true) * LOG10_OF_BASE;
    return values;
  };
  // Order 3: one middle order (bigrams) with probability and backoff tables, then the trigram probabilities.
  const middleProb = table(1 << 16);
  const middleBackoff = table(1 << 16);
  const longestProb = table(1 << 16);
  const unigramProb = new Float64Array(counts[0]!);
  const unigramBackoff = new Float64Array(counts[0]!);
  const unigramNext = new Uint32Array(counts[0]! + 1);
  for (let i = 0; i <= counts[0]!; i++, at += 12) {
    if (i < counts[0]!) {
      unigramProb[i] = view.getFloat32(at, true) * LOG10_OF_BASE;
      unigramBackoff[i] = view.getFloat32(at + 4, true) * LOG10_OF_BASE;
    }
    unigramNext[i] = view.getUint32(at + 8, true);
  }
  const wordBits = requiredBits(counts[0]!);
  const nextBits = requiredBits(counts[2]!);
  const middleBits = wordBits + 32 + nextBits;
  const longestBits = wordBits + 16;
  const middleAt = at;
  at += Math.floor(((1 + counts[1]!) * middleBits + 7) / 8) + 8;
  const longestAt = at;
  at += Math.floor(((1 + counts[2]!) * longestBits + 7) / 8) + 8;
  const textLength = view.getInt32(at, true);
  const words = new TextDecoder()
    .decode(file.subarray(at + 4, at + 4 + textLength))
    .split("\0")
    .slice(0, counts[0]);
  if (words.length !== counts[0]) throw new Error("the trie model's word list is short");

  /** `bits` bits (at most 25) at bit offset `offset` from byte `base`. */
  const read = (base: number, offset: number, bits: number) =>
    bits === 0 ? 0 : (view.getUint32(base + Math.floor(offset / 8), true) >>> (offset % 8)) & ((1 << bits) - 1);

  return {
    order,
    words,
    unigramProb,
    unigramBackoff,
    forEachNgram(callback) {
      for (let w = 0; w < counts[0]!; w++) {
        for (let j = unigramNext[w]!; j < unigramNext[w + 1]!; j++) {
          const offset = j * middleBits;
          const v = read(middleAt, offset, wordBits);
          const backoff = middleBackoff[read(middleAt, offset + wordBits, 16)]!;
          const prob = middleProb[read(middleAt, offset + wordBits + 16, 16)]!;
          callback([v, w], prob, backoff);
          const begin = read(middleAt, offset + wordBits + 32, nextBits);
          const end = read(middleAt, offset + middleBits + wordBits + 32, nextBits);
          for (let k = begin; k < end; k++) {
            const u = read(longestAt, k * longestBits, wordBits);
            callback([u, v, w], longestProb[read(longestAt, k * longestBits + wordBits, 16)]!, 0);
          }
        }
      }
    },
  };
}

/** The trie model as a BackoffModel (linear probabilities), keeping only n-grams whose words pass `keep`. */
export function trieToBackoffModel(trie: TrieModel, keep: (word: string) => boolean = () => true): BackoffModel {
  const kept = trie.words.map(keep);
  const model: BackoffModel = {
    words: trie.words,
    unigram: Float64Array.from(trie.unigramProb, (p) => 10 ** p),
    unigramBackoff: Float64Array.from(trie.unigramBackoff, (b) => 10 ** b),
    bigram: new Map(),
    bigramBackoff: new Map(),
    trigram: new Map(),
  };
  trie.forEachNgram((ids, prob, backoff) => {
    if (!ids.every((id) => kept[id])) return;
    if (ids.length === 2) {
      model.bigram.set(pair(ids[0]!, ids[1]!), 10 ** prob);
      model.bigramBackoff.set(pair(ids[0]!, ids[1]!), 10 ** backoff);
    } else model.trigram.set(triple(ids[0]!, ids[1]!, ids[2]!), 10 ** prob);
  });
  return model;
}
