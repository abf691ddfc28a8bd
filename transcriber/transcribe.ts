// One transcription: WAV bytes in, the verbose_json answer out.
import type { SpeechEngine } from "./engine.ts";
import type { FrontEndOptions } from "./resample.ts";
import { DEFAULT_FRONT_END, ENGINE_RATE, toEngineInput } from "./resample.ts";
import type { Segment } from "./segments.ts";
import { segmentWords } from "./segments.ts";
import { readWav } from "./wav.ts";

export type Transcript = {
  task: "transcribe";
  language: string;
  /** Seconds of audio in the file. */
  duration: number;
  text: string;
  segments: Segment[];
};

/** Transcribes a WAV file; throws WavError on a file it cannot read. */
export async function transcribeWav(
  engine: SpeechEngine,
  wav: Uint8Array,
  options: { frontEnd?: FrontEndOptions; signal?: AbortSignal } = {},
): Promise<Transcript> {
  const audio = readWav(wav);
  const duration = Math.round((audio.samples.length / audio.sampleRate) * 1000) / 1000;
  const samples = toEngineInput(audio.samples, audio.sampleRate, options.frontEnd ?? DEFAULT_FRONT_END);
  // Under a tenth of a second there is nothing to recognise, and the decoder needs a few frames.
  const words = samples.length < ENGINE_RATE / 10 ? [] : await engine.recognise(samples, options.signal);
  const segments = segmentWords(words, duration);
  return { task: "transcribe", language: engine.info.language, duration, text: segments.map((s) => s.text).join(" "), segments };
}
