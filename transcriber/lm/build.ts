// The phone-call language model: a Witten-Bell trigram model (ngram.ts) of every turn of the call
// corpus (data/analyser/corpora/scam-calls-training.jsonl: scam and legitimate calls alike), in the
// words of the decoder's dictionary (text.ts), mixed with a tenth of the general en-us model (read by
// trie.ts) over the calls words and its 5,000 most probable ones, with a dictionary cut down to its words. Built into
// transcriber/model/ (not committed) when missing or when its inputs changed; the same inputs always
// give the same bytes. The ARPA text (calls.arpa) is also converted to sphinx's binary form
// (calls.lm.bin, by sphinx_lm_convert of Debian's sphinxbase-utils, when installed): the decoder,
// started once a request, then loads it in 0.3 s instead of 1.6 s.
//
//   npm run build:lm                 build if missing or stale, print the counts
//   npm run build:lm -- --force      build again
//   npm run build:lm -- --mix=0 --out=/tmp/calls-only    the calls model alone (--mix=0.3 --general-words=20000: another mixture)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mixModels, NgramCounter, toArpa } from "./ngram.ts";
import { dictionaryWords, spokenSentences } from "./text.ts";
import { readTrieModel, trieToBackoffModel } from "./trie.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Bump when the tokeniser or the smoothing changes: models built before are then rebuilt. */
export const BUILDER_VERSION = 2;

export const CALLS_CORPUS = join(ROOT, "data/analyser/corpora/scam-calls-training.jsonl");
export const MODEL_DIR = join(ROOT, "transcriber/model");
export const CMUDICT = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict";
export const GENERAL_LM = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin";

/** Mixing with the general model: its weight, and how many of its most probable words join the vocabulary. */
export type GeneralMix = { weight: number; words: number };
/**
 * The service's model: 0.9 calls + 0.1 general over the calls words and the general model's 5,000 most
 * probable ones. As good as the calls model alone on spoken calls, much better on speech about anything
 * else (README.md); 30 s and 1.6 GB of memory to build, once.
 */
export const DEFAULT_MIX: GeneralMix | null = { weight: 0.1, words: 5000 };

/** The decoder's language model file (binary or ARPA) and dictionary. */
export type LanguageModelFiles = { lm: string; dict: string };
export type BuildOptions = { corpus?: string; cmudict?: string; outDir?: string; force?: boolean; mix?: GeneralMix | null };
type Manifest = {
  inputs: string;
  /** The file the decoder reads: calls.lm.bin, or calls.arpa where sphinx_lm_convert is missing. */
  lm: string;
  sha256: { arpa: string; bin?: string; dict: string };
  words: number;
  sentences: number;
  ngrams: number[];
};

/** Converts ARPA text to sphinx's trie binary with sphinx_lm_convert; false when the tool is missing. */
function toBinary(arpa: string, bin: string): boolean {
  const run = spawnSync("sphinx_lm_convert", ["-i", arpa, "-ifmt", "arpa", "-o", bin, "-ofmt", "bin"], { encoding: "utf8" });
  if (run.error && (run.error as NodeJS.ErrnoException).code === "ENOENT") return false;
  if (run.error || run.status !== 0)
    throw new Error(`sphinx_lm_convert failed: ${run.error?.message ?? run.stderr.trim().split("\n").pop()}`);
  return true;
}

/** The sentences of every turn of every conversation of a JSONL call corpus ({turns: [{text}]}). */
export function corpusSentences(jsonl: string, dictionary: ReadonlySet<string>): (string | null)[][] {
  const sentences: (string | null)[][] = [];
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const call = JSON.parse(line) as { turns: { text: string }[] };
    for (const turn of call.turns) sentences.push(...spokenSentences(turn.text, dictionary));
  }
  return sentences;
}

/** ARPA text and dictionary of a corpus (mixed with the general model, given mix and its bytes): what the files hold. */
export function buildCallsModel(
  jsonl: string,
  cmudict: string,
  general?: { mix: GeneralMix; lm: Uint8Array },
): { arpa: string; dict: string; sentences: number; words: number } {
  const dictionary = dictionaryWords(cmudict);
  const counter = new NgramCounter();
  const sentences = corpusSentences(jsonl, dictionary);
  let words = 0;
  for (const sentence of sentences) {
    counter.add(sentence);
    words += sentence.length;
  }
  let model = counter.toModel();
  if (general) {
    const trie = readTrieModel(general.lm);
    // The general model's most probable words (ties in byte order) that the dictionary holds.
    const top = trie.words
      .map((word, id) => ({ word, p: trie.unigramProb[id]! }))
      .filter(({ word }) => dictionary.has(word) || word === "<s>" || word === "</s>")
      .sort((x, y) => y.p - x.p || (x.word < y.word ? -1 : x.word > y.word ? 1 : 0))
      .slice(0, general.mix.words)
      .map(({ word }) => word);
    const vocabulary = new Set([...model.words, ...top]);
    model = mixModels(
      model,
      trieToBackoffModel(trie, (w) => vocabulary.has(w)),
      1 - general.mix.weight,
      vocabulary,
    );
  }
  const arpa = toArpa(model);
  const vocabulary = new Set(model.words);
  const dict = cmudict
    .split("\n")
    .filter((line) => vocabulary.has(line.slice(0, line.indexOf(" ")).replace(/\(\d+\)$/, "")))
    .join("\n");
  return { arpa, dict: `${dict}\n`, sentences: sentences.length, words };
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Builds the model files unless they are there and were built from the same inputs; returns their paths. */
export function ensureCallsModel(options: BuildOptions = {}): LanguageModelFiles & { arpa: string; built: boolean; manifest: Manifest } {
  const corpus = options.corpus ?? CALLS_CORPUS;
  const cmudict = options.cmudict ?? CMUDICT;
  const outDir = options.outDir ?? MODEL_DIR;
  const arpaPath = join(outDir, "calls.arpa");
  const binPath = join(outDir, "calls.lm.bin");
  const dictPath = join(outDir, "calls.dict");
  const manifestPath = join(outDir, "calls.json");
  if (!existsSync(corpus)) throw new Error(`the call corpus ${corpus} is missing: it is part of the repository`);
  const corpusText = readFileSync(corpus, "utf8");
  const dictText = readFileSync(cmudict, "utf8");
  const mix = options.mix === undefined ? DEFAULT_MIX : options.mix;
  const general = mix ? { mix, lm: readFileSync(GENERAL_LM) } : undefined;
  const inputs = sha256(
    [BUILDER_VERSION, sha256(corpusText), sha256(dictText), JSON.stringify(mix), general ? sha256(general.lm) : ""].join("\n"),
  );
  if (!options.force && existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
    if (manifest.inputs === inputs && existsSync(join(outDir, manifest.lm)) && existsSync(dictPath)) {
      return { lm: join(outDir, manifest.lm), dict: dictPath, arpa: arpaPath, built: false, manifest };
    }
  }
  const model = buildCallsModel(corpusText, dictText, general);
  mkdirSync(outDir, { recursive: true });
  const counts = /ngram 1=(\d+)\nngram 2=(\d+)\nngram 3=(\d+)/.exec(model.arpa)!.slice(1).map(Number);
  // Written beside and renamed, so a decoder never reads half a file.
  const put = (path: string, text: string) => {
    writeFileSync(`${path}.tmp`, text);
    renameSync(`${path}.tmp`, path);
  };
  rmSync(manifestPath, { force: true });
  put(arpaPath, model.arpa);
  put(dictPath, model.dict);
  const binary = toBinary(arpaPath, `${binPath}.tmp`);
  if (binary) renameSync(`${binPath}.tmp`, binPath);
  else rmSync(binPath, { force: true });
  const manifest: Manifest = {
    inputs,
    lm: binary ? "calls.lm.bin" : "calls.arpa",
    sha256: { arpa: sha256(model.arpa), ...(binary ? { bin: sha256(readFileSync(binPath)) } : {}), dict: sha256(model.dict) },
    words: model.words,
    sentences: model.sentences,
    ngrams: counts,
  };
  put(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { lm: join(outDir, manifest.lm), dict: dictPath, arpa: arpaPath, built: true, manifest };
}

if (import.meta.main) {
  const started = Date.now();
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const weight = arg("mix");
  const mix =
    weight === undefined ? undefined : Number(weight) > 0 ? { weight: Number(weight), words: Number(arg("general-words") ?? 5000) } : null;
  const result = ensureCallsModel({ force: process.argv.includes("--force"), mix, outDir: arg("out") });
  const { manifest } = result;
  console.log(
    `${result.built ? "built" : "up to date:"} ${result.lm} (${manifest.ngrams.join(" / ")} 1/2/3-grams from ${manifest.sentences} sentences, ` +
      `${manifest.words} words) and ${result.dict}${result.built ? ` in ${((Date.now() - started) / 1000).toFixed(1)} s` : ""}`,
  );
}
