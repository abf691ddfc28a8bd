// The speech-to-text engine behind the service: 16 kHz mono 16-bit samples in, timed words out.
// One adapter today (pocketsphinx.ts); another engine only has to implement this interface.

export type TimedWord = {
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  word: string;
  /** The engine's breath between utterances: words of one utterance share the number. */
  utterance: number;
};

export type EngineInfo = {
  /** Engine name and version, e.g. "pocketsphinx 0.8". */
  engine: string;
  /** The model name the API reports. */
  model: string;
  /** ISO-639-1 code of the one language the model knows. */
  language: string;
  /** Which language model the decoder uses, when it has a choice (e.g. "calls", "general"). */
  lm?: string;
};

export interface SpeechEngine {
  readonly info: EngineInfo;
  /** Throws EngineUnavailable when the engine or its model is not installed. */
  check(): Promise<void>;
  /** Words of 16 kHz mono samples, in time order. */
  recognise(samples: Int16Array, signal?: AbortSignal): Promise<TimedWord[]>;
  /** Frees what the engine holds (temporary files); recognise may be called again afterwards. */
  close(): Promise<void>;
}

/** The engine or its model is not installed, or it failed to run. */
export class EngineUnavailable extends Error {
  override readonly name = "EngineUnavailable";
}

/** The engine ran and failed on this audio. */
export class EngineFailed extends Error {
  override readonly name = "EngineFailed";
}
