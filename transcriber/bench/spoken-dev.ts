// Spoken versions of real calls, transcribed by the service's own code: word error rate of the
// offline recogniser on phone-call language, with the general and the phone-call language model,
// and the transcripts the analyser's evaluation scores (data/analyser/spoken-dev/offline-transcripts.jsonl).
//
//   node transcriber/bench/spoken-dev.ts                 measured set, both models, writes the JSONL (about 10 minutes)
//   options: --lm=general,calls        language models to compare ("general", "calls", or name=file.lm:file.dict)
//            --band=g711|tel           audio path (below; g711 by default)
//            --tune                    the tuning set instead (the rest of real-dev), nothing written
//            --args="-lw 10"           extra decoder arguments
//            --parallel=2 --verbose --no-write
//
// Calls: the first 35 lines of data/analyser/corpora/real-dev/ftc-dev.jsonl and the first 15 of
// youtube-dev.jsonl (the tuning set is the other 34 + 8), each cut to its first 60 words, spoken by
// espeak-ng (en-us, 150 words a minute), then
//   g711: sox rate 8000, G.711 µ-law (no dither) and back to 16-bit, as the SIP node records a call;
//   tel:  the same, band-passed to 300-3400 Hz first, as a telephone line does.
// The reference is the text spoken; WER compares its words, numbers spelled as words (lm/text.ts),
// with the decoder's, pooled over the set.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureCallsModel, CMUDICT } from "../lm/build.ts";
import { dictionaryWords, spokenWords } from "../lm/text.ts";
import { PocketSphinxEngine } from "../pocketsphinx.ts";
import { transcribeWav } from "../transcribe.ts";
import { wordErrors } from "../wer.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEV = join(ROOT, "data/analyser/corpora/real-dev");
const OUTPUT = join(ROOT, "data/analyser/spoken-dev/offline-transcripts.jsonl");
const WORDS = 60;
const MEASURED = { ftc: 35, youtube: 15 };

type Call = { id: string; group: string; label: string; text: string };
type Item = Call & { reference: string; wav: Uint8Array };

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const flag = (name: string) => process.argv.includes(`--${name}`);

const work = mkdtempSync(join(tmpdir(), "transcriber-spoken-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.error || result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed: ${result.error?.message ?? result.stderr.trim()}`);
}

function lines(file: string): Call[] {
  return readFileSync(join(DEV, file), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Call);
}

/** The calls of the measured set (or, with tune, of the tuning set), in file order. */
export function spokenDevCalls(tune = false): Call[] {
  const ftc = lines("ftc-dev.jsonl");
  const youtube = lines("youtube-dev.jsonl");
  return tune
    ? [...ftc.slice(MEASURED.ftc), ...youtube.slice(MEASURED.youtube)]
    : [...ftc.slice(0, MEASURED.ftc), ...youtube.slice(0, MEASURED.youtube)];
}

/** espeak-ng speech of a text through the chosen audio path, as 16-bit WAV bytes. */
function speak(text: string, band: string, n: number): Uint8Array {
  const spoken = join(work, `${n}.wav`);
  const ulaw = join(work, `${n}-ulaw.wav`);
  const pcm = join(work, `${n}-8k.wav`);
  run("espeak-ng", ["-v", "en-us", "-s", "150", "-w", spoken, text]);
  // -D: no dither (sox's is random unless -R; a G.711 codec adds none), -R: repeatable.
  run("sox", ["-D", "-R", spoken, "-t", "wav", "-e", "u-law", ulaw, ...(band === "tel" ? ["sinc", "300-3400"] : []), "rate", "8000"]);
  run("sox", ["-D", "-R", ulaw, "-b", "16", "-e", "signed-integer", pcm]);
  return readFileSync(pcm);
}

type Lm = { name: string; lm?: string; dict?: string };

function languageModels(): Lm[] {
  return (arg("lm") ?? "general,calls").split(",").map((spec) => {
    if (spec === "general") return { name: "general" };
    if (spec === "calls") {
      const { lm, dict } = ensureCallsModel();
      return { name: "calls", lm, dict };
    }
    const [name, files] = spec.split("=") as [string, string];
    const [lm, dict] = files.split(":");
    return { name, lm, dict };
  });
}

async function main(): Promise<void> {
  const tune = flag("tune");
  const band = arg("band") ?? "g711";
  const parallel = Number(arg("parallel") ?? 2);
  const extraArgs = arg("args")?.split(/\s+/).filter(Boolean) ?? [];
  const verbose = flag("verbose");
  const write = !tune && !flag("no-write");
  const dictionary = dictionaryWords(readFileSync(CMUDICT, "utf8"));
  const models = languageModels();

  const items: Item[] = spokenDevCalls(tune).map((call, n) => {
    const reference = call.text.split(/\s+/).filter(Boolean).slice(0, WORDS).join(" ");
    return { ...call, reference, wav: speak(reference, band, n) };
  });
  const referenceWords = items.map((item) => spokenWords(item.reference, dictionary));
  const total = referenceWords.reduce((n, r) => n + r.length, 0);
  console.log(
    `WER (%), ${tune ? "tuning" : "measured"} set: ${items.length} real-dev calls spoken by espeak-ng, ${band === "tel" ? "300-3400 Hz, " : ""}8 kHz G.711 (${total} words)` +
      `${extraArgs.length ? `; decoder ${extraArgs.join(" ")}` : ""}\n`,
  );
  console.log("| language model | all | ftc | youtube | seconds |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  const written: Record<string, string>[] = [];
  for (const model of models) {
    const engine = new PocketSphinxEngine({ lm: model.lm, dict: model.dict, extraArgs });
    await engine.check();
    const hypotheses: string[] = new Array(items.length);
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const i = next++;
        hypotheses[i] = (await transcribeWav(engine, items[i]!.wav)).text;
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    await engine.close();
    const seconds = (Date.now() - started) / 1000;
    const pooled = (filter: (item: Item) => boolean) => {
      let errors = 0;
      let words = 0;
      items.forEach((item, i) => {
        if (!filter(item)) return;
        errors += wordErrors(referenceWords[i]!, spokenWords(hypotheses[i]!));
        words += referenceWords[i]!.length;
      });
      return ((100 * errors) / words).toFixed(1);
    };
    const cells = [pooled(() => true), pooled((i) => i.id.startsWith("ftc:")), pooled((i) => i.id.startsWith("youtube:"))];
    console.log(`| ${model.name} | ${cells.join(" | ")} | ${seconds.toFixed(0)} |`);
    if (verbose) {
      items.forEach((item, i) =>
        console.error(`  [${model.name}] ${item.id}\n    ref: ${referenceWords[i]!.join(" ")}\n    hyp: ${hypotheses[i]}`),
      );
    }
    if (write && model.name === "calls") {
      written.push(
        ...items.map((item, i) => ({
          id: item.id,
          group: item.group,
          label: item.label,
          reference: item.reference,
          hypothesis: hypotheses[i]!,
        })),
      );
    }
  }
  if (written.length) {
    mkdirSync(join(OUTPUT, ".."), { recursive: true });
    writeFileSync(OUTPUT, written.map((row) => JSON.stringify(row)).join("\n") + "\n");
    console.log(`\n${written.length} transcripts (the calls model, the service's default) in ${OUTPUT}`);
  }
}

if (import.meta.main) await main();
