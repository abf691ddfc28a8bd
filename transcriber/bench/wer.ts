// Word error rate of the offline engine, configuration by audio set, printed as a table.
//
//   node transcriber/bench/wer.ts           the measured sets (kept apart from tuning)
//   node transcriber/bench/wer.ts --dev     the development sets, with a sweep of the front end's settings
//   node transcriber/bench/wer.ts --lm=general,calls   the service front end with each language model
//   options: --sets="real 8k G.711,espeak 8k G.711" (only those columns), --verbose (each reference and hypothesis),
//            with --dev: --fold=0,0.5,1 (band fold gains) --noise=off,50,40 (comfort noise, dB under the peak)
//            --lm: "general" (en-us.lm.bin), "calls" (lm/build.ts, the service's default) or name=file.lm:file.dict
//
// Audio sets, made here with Debian's sox and espeak-ng from Debian's pocketsphinx-testdata:
//   real 16k        LibriVox read speech (5 utterances, 71 words, 35 s), as shipped: 16 kHz
//   real 8k G.711   the same, resampled to 8 kHz, through µ-law and back to 16-bit (what the recorder writes)
//   real 8k tel     the same, also band-passed to 300-3400 Hz first, as a telephone line does
//   espeak 16k      espeak-ng (en-us) speaking 12 call-like sentences, 16 kHz
//   espeak 8k G.711 the same, 8 kHz through µ-law
// WER pools a set: all word errors over all reference words.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureCallsModel } from "../lm/build.ts";
import { PocketSphinxEngine } from "../pocketsphinx.ts";
import type { FrontEndOptions } from "../resample.ts";
import { DEFAULT_FRONT_END } from "../resample.ts";
import { transcribeWav } from "../transcribe.ts";
import { normaliseWords, wordErrors } from "../wer.ts";

const TESTDATA = "/usr/share/pocketsphinx/test/data";

/** Call-like sentences for the measured espeak sets. */
export const ESPEAK_TEST = [
  "Hello, this is the fraud department of your bank.",
  "We have noticed a suspicious payment on your account.",
  "Please confirm your date of birth and the last four digits of your card.",
  "Can you read me the code we just sent to your phone?",
  "If you do not act today your account will be closed.",
  "I am calling about your car insurance renewal.",
  "Could you call me back when you have a minute?",
  "The meeting has been moved to Thursday afternoon.",
  "Your parcel could not be delivered because of an unpaid fee.",
  "Press one to speak to an agent now.",
  "Thank you for your time, have a good evening.",
  "I would like to book a table for two people at eight.",
];

/** Different sentences, only for tuning the front end (--dev). */
const ESPEAK_DEV = [
  "Good morning, may I speak to the person in charge of the accounts?",
  "This is a reminder that your appointment is tomorrow at ten.",
  "We need you to buy gift cards and send us the numbers.",
  "The weather is going to be cold and wet this weekend.",
  "Your computer has a virus and we can fix it for you.",
  "Can you hear me now, the line is very bad.",
];

type Item = { wav: Uint8Array; reference: string };
type AudioSet = { name: string; items: Item[] };

const work = mkdtempSync(join(tmpdir(), "transcriber-wer-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.error || result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed: ${result.error?.message ?? result.stderr.trim()}`);
  }
}

let counter = 0;
/** Runs sox from a source file through the given effects and formats into a 16-bit WAV; returns its bytes. */
function sox(source: string, ...steps: string[][]): Uint8Array {
  let input = source;
  for (const step of steps) {
    const output = join(work, `${counter++}.wav`);
    // -R: sox's dither is random unless asked to repeat itself.
    run("sox", ["-R", input, ...step.slice(0, step.indexOf("|")), output, ...step.slice(step.indexOf("|") + 1)]);
    input = output;
  }
  return readFileSync(input);
}

// sox argument groups: output format options | effects.
const TO_16K = ["-b", "16", "-e", "signed-integer", "|", "rate", "16000"];
const TO_8K_ULAW = ["-t", "wav", "-e", "u-law", "|", "rate", "8000"];
const ULAW_TO_PCM = ["-b", "16", "-e", "signed-integer", "|"];
const BANDPASS_TO_8K_ULAW = ["-t", "wav", "-e", "u-law", "|", "sinc", "300-3400", "rate", "8000"];

function librivox(): { path: string; reference: string }[] {
  const dir = join(TESTDATA, "librivox");
  const ids = readFileSync(join(dir, "fileids"), "utf8").split("\n").filter(Boolean);
  const lines = readFileSync(join(dir, "transcription"), "utf8").split("\n");
  return ids.map((id) => {
    const line = lines.find((l) => l.includes(`(${id})`)) ?? "";
    return { path: join(dir, `${id}.wav`), reference: line.replace(/<\/?s>|\(.*\)/g, " ").trim() };
  });
}

/** The pocketsphinx test data the upstream tests use: the cards grammar set and goforward.raw. */
function realDev(): { path: string; reference: string }[] {
  const cards = readFileSync(join(TESTDATA, "cards", "cards.transcription"), "utf8")
    .split("\n")
    .filter(Boolean);
  const items = cards.map((line) => {
    const id = /\((\w+)\)/.exec(line)?.[1] ?? "";
    return { path: join(TESTDATA, "cards", `${id}.wav`), reference: line.replace(/<\/?s>|\(.*\)/g, " ").trim() };
  });
  const forward = join(work, "goforward.wav");
  run("sox", ["-t", "raw", "-r", "16000", "-e", "signed-integer", "-b", "16", "-c", "1", join(TESTDATA, "goforward.raw"), forward]);
  return [...items, { path: forward, reference: "go forward ten meters" }];
}

function espeak(sentences: string[]): { path: string; reference: string }[] {
  return sentences.map((text, i) => {
    const path = join(work, `espeak-${counter++}-${i}.wav`);
    run("espeak-ng", ["-v", "en-us", "-w", path, text]);
    return { path, reference: text };
  });
}

function sets(dev: boolean): AudioSet[] {
  const real = dev ? realDev() : librivox();
  const spoken = espeak(dev ? ESPEAK_DEV : ESPEAK_TEST);
  const make = (name: string, sources: typeof real, ...steps: string[][]): AudioSet => ({
    name,
    items: sources.map((s) => ({ wav: sox(s.path, ...steps), reference: s.reference })),
  });
  return [
    make("real 16k", real, TO_16K),
    make("real 8k G.711", real, TO_8K_ULAW, ULAW_TO_PCM),
    make("real 8k tel", real, BANDPASS_TO_8K_ULAW, ULAW_TO_PCM),
    make("espeak 16k", spoken, TO_16K),
    make("espeak 8k G.711", spoken, TO_8K_ULAW, ULAW_TO_PCM),
  ];
}

type Config = { name: string; frontEnd: FrontEndOptions; engine?: PocketSphinxEngine };

const OFF = Infinity;
const CONFIGS: Config[] = [
  { name: "pocketsphinx, plain resampling", frontEnd: { foldGain: 0, widebandNoiseDb: OFF, telephoneNoiseDb: OFF } },
  { name: "pocketsphinx + noise -50 dB everywhere", frontEnd: { foldGain: 0, widebandNoiseDb: 50, telephoneNoiseDb: 50 } },
  { name: "pocketsphinx + band fold (g = 1)", frontEnd: { foldGain: 1, widebandNoiseDb: OFF, telephoneNoiseDb: OFF } },
  { name: "pocketsphinx, service front end", frontEnd: DEFAULT_FRONT_END },
];

/** The values of --name=a,b,c, numbers ("off" is Infinity), or the fallback. */
function listArg(name: string, fallback: number[]): number[] {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  return raw ? raw.split(",").map((v) => (v === "off" ? Infinity : Number(v))) : fallback;
}

function sweep(): Config[] {
  const configs: Config[] = [];
  for (const foldGain of listArg("fold", [0, 0.5, 1])) {
    for (const noiseDb of listArg("noise", [Infinity, 50, 40])) {
      const name = `fold ${foldGain}, noise ${noiseDb === Infinity ? "off" : `-${noiseDb} dB`}`;
      configs.push({ name, frontEnd: { foldGain, widebandNoiseDb: noiseDb, telephoneNoiseDb: noiseDb } });
    }
  }
  return configs;
}

/** One row per language model of --lm, with the service front end; none without --lm. */
function languageModelConfigs(): Config[] {
  const specs = process.argv.find((a) => a.startsWith("--lm="))?.slice("--lm=".length);
  if (!specs) return [];
  return specs.split(",").map((spec) => {
    if (spec === "general") return { name: "service front end, general LM", frontEnd: DEFAULT_FRONT_END, engine: new PocketSphinxEngine() };
    if (spec === "calls") {
      const { lm, dict } = ensureCallsModel();
      return { name: "service front end, calls LM", frontEnd: DEFAULT_FRONT_END, engine: new PocketSphinxEngine({ lm, dict }) };
    }
    const [name, files] = spec.split("=") as [string, string];
    const [lm, dict] = files.split(":");
    return { name: `service front end, ${name} LM`, frontEnd: DEFAULT_FRONT_END, engine: new PocketSphinxEngine({ lm, dict }) };
  });
}

/** The general language model, as measured before the phone-call one (the figures of README.md). */
const engine = new PocketSphinxEngine();

/** Recognitions at once: one per core of the 2-core machines this runs on. */
const PARALLEL = 2;

async function score(
  set: AudioSet,
  frontEnd: FrontEndOptions,
  verbose: boolean,
  recogniser: PocketSphinxEngine = engine,
): Promise<{ errors: number; words: number }> {
  let errors = 0;
  let words = 0;
  let next = 0;
  const worker = async () => {
    while (next < set.items.length) {
      const item = set.items[next++]!;
      const { text } = await transcribeWav(recogniser, item.wav, { frontEnd });
      const ref = normaliseWords(item.reference);
      const e = wordErrors(ref, normaliseWords(text));
      errors += e;
      words += ref.length;
      if (verbose) console.error(`  [${set.name}] ${e}/${ref.length}\n    ref: ${ref.join(" ")}\n    hyp: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return { errors, words };
}

async function main(): Promise<void> {
  const dev = process.argv.includes("--dev");
  const verbose = process.argv.includes("--verbose");
  await engine.check();
  const only = process.argv
    .find((a) => a.startsWith("--sets="))
    ?.slice("--sets=".length)
    .split(",");
  const audio = sets(dev).filter((s) => !only || only.includes(s.name));
  const byLm = languageModelConfigs();
  const configs = byLm.length ? byLm : dev ? sweep() : CONFIGS;
  for (const config of byLm) await config.engine!.check();
  const started = Date.now();
  const width = Math.max(...configs.map((c) => c.name.length));
  console.log(`WER (%), ${dev ? "development" : "measured"} sets; engine ${engine.info.engine}, model ${engine.info.model}\n`);
  console.log(`| ${"configuration".padEnd(width)} | ${audio.map((s) => `${s.name} (${count(s)} w)`).join(" | ")} |`);
  console.log(`| ${"-".repeat(width)} | ${audio.map((s) => "-".repeat(`${s.name} (${count(s)} w)`.length - 1) + ":").join(" | ")} |`);
  for (const config of configs) {
    const cells: string[] = [];
    for (const set of audio) {
      const { errors, words } = await score(set, config.frontEnd, verbose, config.engine);
      cells.push(((100 * errors) / words).toFixed(1).padStart(`${set.name} (${count(set)} w)`.length));
    }
    console.log(`| ${config.name.padEnd(width)} | ${cells.join(" | ")} |`);
  }
  console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s`);
  await engine.close();
  for (const config of byLm) await config.engine!.close();
}

function count(set: AudioSet): number {
  return set.items.reduce((n, item) => n + normaliseWords(item.reference).length, 0);
}

await main();
