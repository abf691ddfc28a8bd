// The offline transcriber's phone-call language model (transcriber/lm/): the text is spelled as the
// decoder's dictionary spells it, the Witten-Bell model is a proper distribution and the same input
// gives the same bytes, the general model's trie is read as the decoder reads it, mixing keeps a proper
// distribution, and the model the service uses (the calls model mixed with a tenth of the general one)
// is built from the repository's corpus the same way twice and loads in the decoder. About a minute.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildCallsModel, CALLS_CORPUS, CMUDICT, ensureCallsModel, GENERAL_LM } from "../../transcriber/lm/build.ts";
import type { BackoffModel } from "../../transcriber/lm/ngram.ts";
import { mixModels, NgramCounter, probability, toArpa } from "../../transcriber/lm/ngram.ts";
import { dictionaryWords, numberWords, spokenSentences, spokenWords } from "../../transcriber/lm/text.ts";
import { readTrieModel, trieToBackoffModel } from "../../transcriber/lm/trie.ts";
import { PocketSphinxEngine } from "../../transcriber/pocketsphinx.ts";
import { resample } from "../../transcriber/resample.ts";
import { transcribeWav } from "../../transcriber/transcribe.ts";
import { encodeWav, readWav } from "../../transcriber/wav.ts";
import { wordErrorRate } from "../../transcriber/wer.ts";

const dictionary = dictionaryWords(readFileSync(CMUDICT, "utf8"));
const work = mkdtempSync(join(tmpdir(), "transcriber-lm-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SENTENCES = [
  "Hello, this is Karen from Dr. Smith's office.",
  "Press 1 to speak to an agent.",
  "Your account will be suspended today!",
  "Please call us back at 1-800-555-0199.",
  "I never ordered that, is this a scam?",
  "Your order of $1,250.50 was placed on your account.",
];

/** Sums P(w | history) over the vocabulary: one for a proper distribution. */
function mass(model: BackoffModel, v: number, u = -1): number {
  let sum = 0;
  for (let w = 0; w < model.words.length; w++) if (model.words[w] !== "<s>") sum += probability(model, w, v, u);
  return sum;
}

describe("phone-call language model", () => {
  it("spells text as the dictionary does: numbers, money, phone numbers, abbreviations, acronyms", () => {
    expect(numberWords(1205)).toEqual(["one", "thousand", "two", "hundred", "five"]);
    expect(spokenWords("Press 1 now, $1,250.50 is due at 2:30 on the 21st")).toEqual(
      "press one now one thousand two hundred fifty dollars and fifty cents is due at two thirty on the twenty first".split(" "),
    );
    expect(spokenWords("Call 1-800-555-0199 or (202) 555-1234")).toEqual(
      "call one eight zero zero five five five zero one nine nine or two zero two five five five one two three four".split(" "),
    );
    expect(spokenWords("In 1985 the SSA paid 5% to Dr. Smith", dictionary)).toEqual(
      "in nineteen eighty five the s s a paid five percent to doctor smith".split(" "),
    );
    const sentences = spokenSentences("Hi, this is TechShield support. Your SSA number has a virus!", dictionary);
    expect(sentences).toEqual([
      ["hi", "this", "is", null, "support"],
      ["your", "s", "s", "a", "number", "has", "a", "virus"],
    ]);
  });

  it("builds a proper Witten-Bell model, the same bytes whatever order the corpus comes in", () => {
    const build = (lines: string[]) => {
      const counter = new NgramCounter();
      for (const line of lines) for (const sentence of spokenSentences(line, dictionary)) counter.add(sentence);
      return counter.toModel();
    };
    const model = build(SENTENCES);
    const arpa = toArpa(model);
    expect(toArpa(build([...SENTENCES].reverse()))).toBe(arpa);
    expect(arpa).toMatch(/^\\data\\\nngram 1=\d+\nngram 2=\d+\nngram 3=\d+\n/);
    expect(arpa.trimEnd().endsWith("\\end\\")).toBe(true);
    const id = (w: string) => model.words.indexOf(w);
    for (const [v, u] of [
      [id("your"), -1],
      [id("to"), id("speak")],
      [id("account"), id("your")],
      [id("scam"), -1],
      [id("to"), id("hello")],
    ] as [number, number][]) {
      expect(mass(model, v, u)).toBeCloseTo(1, 9);
    }
    // Witten-Bell: "your" is followed by account (twice), order; P(account | your) = (2 + 2 P(account)) / (3 + 2).
    const pAccount = model.unigram[id("account")]!;
    expect(probability(model, id("account"), id("your"))).toBeCloseTo((2 + 2 * pAccount) / 5, 12);
  });

  it("reads the general model's trie as the decoder does", () => {
    const trie = readTrieModel(readFileSync(GENERAL_LM));
    expect(trie.words.length).toBe(72547);
    const general = trieToBackoffModel(trie, (w) => ["of", "the", "one", "a", "lot"].includes(w));
    const id = (w: string) => general.words.indexOf(w);
    // sphinx_lm_eval -lm en-us.lm.bin -text "one of the": log P(the | one of) = -0.3058, and
    // -text "of the": log P(the | of) = -0.6986 (log10).
    expect(Math.log10(probability(general, id("the"), id("of"), id("one")))).toBeCloseTo(-0.3058, 3);
    expect(Math.log10(probability(general, id("the"), id("of")))).toBeCloseTo(-0.6986, 3);
    expect(Math.log10(general.unigram[id("the")]!)).toBeCloseTo(-1.3895, 3);
  });

  it("mixes two models into a proper distribution", () => {
    const counter = new NgramCounter();
    for (const line of SENTENCES) for (const sentence of spokenSentences(line, dictionary)) counter.add(sentence);
    const calls = counter.toModel();
    const trie = readTrieModel(readFileSync(GENERAL_LM));
    const vocabulary = new Set([...calls.words, "of", "the", "money", "bank", "today"]);
    const mixed = mixModels(
      calls,
      trieToBackoffModel(trie, (w) => vocabulary.has(w)),
      0.7,
      vocabulary,
    );
    const id = (w: string) => mixed.words.indexOf(w);
    for (const [v, u] of [
      [id("your"), -1],
      [id("the"), -1],
      [id("account"), id("your")],
    ] as [number, number][]) {
      expect(mass(mixed, v, u)).toBeCloseTo(1, 9);
    }
    expect(mixed.words).toContain("bank");
  });

  it("builds the service's model from the repository's corpus, deterministically, and the decoder loads it", async () => {
    // The service's model (built by scripts/ensure-transcriber.sh before the tests, or here), and a fresh build elsewhere.
    const service = ensureCallsModel();
    const first = ensureCallsModel({ outDir: join(work, "a"), force: true });
    expect(first.built).toBe(true);
    expect(first.manifest.sha256).toEqual(service.manifest.sha256);
    expect(first.manifest.ngrams[0]).toBeGreaterThan(7000);
    expect(ensureCallsModel({ outDir: join(work, "a") }).built).toBe(false);
    // The calls model alone from the same corpus in another order gives the same bytes.
    const corpus = readFileSync(CALLS_CORPUS, "utf8");
    const cmudict = readFileSync(CMUDICT, "utf8");
    const inOrder = buildCallsModel(corpus, cmudict);
    const shuffled = buildCallsModel(corpus.trim().split("\n").reverse().join("\n"), cmudict);
    expect(inOrder.arpa === shuffled.arpa).toBe(true);
    expect(inOrder.dict).toBe(shuffled.dict);

    const wav = execFileSync("espeak-ng", ["-v", "en-us", "--stdout", "Press one to speak to an agent about your account."]);
    const audio = readWav(new Uint8Array(wav.buffer, wav.byteOffset, wav.byteLength));
    const samples = Int16Array.from(resample(audio.samples, audio.sampleRate, 16_000), (s) =>
      Math.max(-32768, Math.min(32767, Math.round(s * 32768))),
    );
    const engine = new PocketSphinxEngine({ lm: first.lm, dict: first.dict, lmName: "calls" });
    await engine.check();
    const { text } = await transcribeWav(engine, encodeWav(samples, 16_000));
    await engine.close();
    // Measured: "this would be good tonight and out your account" (WER 0.8); the bench measures quality, this that it decodes.
    expect(wordErrorRate("Press one to speak to an agent about your account.", text), text).toBeLessThanOrEqual(0.9);
    expect(
      text.split(" ").filter((w) => ["press", "one", "speak", "agent", "your", "account"].includes(w)).length,
      text,
    ).toBeGreaterThanOrEqual(1);
  }, 240_000);
});
