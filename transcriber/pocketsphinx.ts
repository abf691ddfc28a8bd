// CMU PocketSphinx from Debian (packages pocketsphinx and pocketsphinx-en-us: the en-us
// continuous acoustic model, its 134 k-word dictionary and a generic trigram language model),
// driven through pocketsphinx_continuous: a raw 16 kHz file in (its -infile cannot read Node's
// stdin, a socket), one line of words per utterance out and, with -time yes, one line per word
// with its start and end in seconds.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EngineInfo, SpeechEngine, TimedWord } from "./engine.ts";
import { EngineFailed, EngineUnavailable } from "./engine.ts";

export type PocketSphinxOptions = {
  /** The pocketsphinx_continuous binary. */
  binary: string;
  /** Folder holding en-us/ (acoustic model), en-us.lm.bin and cmudict-en-us.dict. */
  modelDir: string;
  /** Language model (ARPA text or sphinx binary) and its dictionary; the model folder's general ones by default. */
  lm?: string;
  dict?: string;
  /** What the language model is, for /health (e.g. "calls"). */
  lmName?: string;
  /** Extra decoder arguments, e.g. ["-lw", "8"]. */
  extraArgs?: string[];
  /** A run is killed after this many seconds plus twice the audio's length. */
  timeoutSeconds?: number;
};

export const DEFAULT_POCKETSPHINX: PocketSphinxOptions = {
  binary: "pocketsphinx_continuous",
  modelDir: "/usr/share/pocketsphinx/model/en-us",
};

/** Word line of -time yes: `word start end posterior`. */
const WORD_LINE = /^(\S+) (\d+\.\d+) (\d+\.\d+) (-?\d+(?:\.\d+)?(?:e[-+]\d+)?)$/;
/** Tokens that are not words: sentence marks, silence and the noise dictionary's fillers. */
const FILLER = /^(<s>|<\/s>|<sil>|\[[A-Z_]+\]|\+\+.*\+\+)$/;

export class PocketSphinxEngine implements SpeechEngine {
  readonly info: EngineInfo;
  private readonly options: PocketSphinxOptions;
  private workDir: Promise<string> | null = null;

  constructor(options: Partial<PocketSphinxOptions> = {}) {
    this.options = { ...DEFAULT_POCKETSPHINX, ...options };
    const lm = this.options.lmName ?? (this.options.lm ? "custom" : "general");
    this.info = { engine: "pocketsphinx 0.8 (Debian)", model: "pocketsphinx-en-us", language: "en", lm };
  }

  private get files() {
    const dir = this.options.modelDir;
    return {
      hmm: join(dir, "en-us"),
      lm: this.options.lm ?? join(dir, "en-us.lm.bin"),
      dict: this.options.dict ?? join(dir, "cmudict-en-us.dict"),
    };
  }

  async check(): Promise<void> {
    const { hmm, lm, dict } = this.files;
    for (const path of [join(hmm, "mdef"), lm, dict]) {
      await access(path).catch(() => {
        const from = path.startsWith(this.options.modelDir) ? "Debian package pocketsphinx-en-us" : "npm run build:lm";
        throw new EngineUnavailable(`the pocketsphinx model file ${path} is missing (${from})`);
      });
    }
    // A second of silence proves the binary runs and loads the model.
    await this.recognise(new Int16Array(ENGINE_CHECK_SAMPLES)).catch((err: Error) => {
      throw err instanceof EngineUnavailable ? err : new EngineUnavailable(`pocketsphinx does not run: ${err.message}`);
    });
  }

  async recognise(samples: Int16Array, signal?: AbortSignal): Promise<TimedWord[]> {
    this.workDir ??= mkdtemp(join(tmpdir(), "transcriber-"));
    const input = join(await this.workDir, `${randomUUID()}.raw`);
    await writeFile(input, samples);
    try {
      return await this.decode(input, samples.length / 16_000, signal);
    } finally {
      await rm(input, { force: true });
    }
  }

  /** Removes the folder of input files. */
  async close(): Promise<void> {
    if (this.workDir) await rm(await this.workDir, { recursive: true, force: true });
    this.workDir = null;
  }

  private decode(input: string, seconds: number, signal?: AbortSignal): Promise<TimedWord[]> {
    const { hmm, lm, dict } = this.files;
    const args = ["-infile", input, "-samprate", "16000", "-hmm", hmm, "-lm", lm, "-dict", dict, "-time", "yes"];
    args.push("-logfn", "/dev/null", ...(this.options.extraArgs ?? []));
    const timeoutMs = Math.ceil(((this.options.timeoutSeconds ?? 30) + 2 * seconds) * 1000);
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.binary, args, {
        stdio: ["ignore", "pipe", "pipe"],
        signal,
        timeout: timeoutMs,
        killSignal: "SIGKILL",
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
      child.on("error", (e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") reject(new EngineUnavailable(`${this.options.binary} is not installed (Debian package pocketsphinx)`));
        else reject(new EngineFailed(`pocketsphinx: ${e.message}`));
      });
      child.on("close", (code, sig) => {
        if (code !== 0) {
          const detail = Buffer.concat(err).toString("utf8").trim().split("\n").slice(-2).join(" ");
          return reject(new EngineFailed(`pocketsphinx exited with ${sig ?? code}${detail ? `: ${detail}` : ""}`));
        }
        resolve(parseWords(Buffer.concat(out).toString("utf8")));
      });
    });
  }
}

const ENGINE_CHECK_SAMPLES = 16_000;

/** Timed words of pocketsphinx_continuous -time yes output; an utterance starts at each <s>. */
export function parseWords(stdout: string): TimedWord[] {
  const words: TimedWord[] = [];
  let utterance = -1;
  for (const line of stdout.split("\n")) {
    const match = WORD_LINE.exec(line.trim());
    if (!match) continue;
    const [, token, start, end] = match as unknown as [string, string, string, string];
    if (token === "<s>") utterance++;
    if (FILLER.test(token)) continue;
    // cmudict marks alternative pronunciations as word(2).
    words.push({ word: token.replace(/\(\d+\)$/, ""), start: Number(start), end: Number(end), utterance: Math.max(0, utterance) });
  }
  return words;
}
