// The transcriber's configuration, from its environment, validated once at start.

export type TranscriberConfig = {
  host: string;
  port: number;
  /** Recognitions run at once; more requests wait their turn. */
  concurrency: number;
  /** Requests waiting beyond the running ones; past it the service answers 503. */
  maxQueue: number;
  /** Largest upload accepted, in bytes. */
  maxBytes: number;
  /** The pocketsphinx_continuous binary and the model folder. */
  pocketsphinxBinary: string;
  modelDir: string;
  /**
   * The language model: "calls" (built from the call corpus, lm/build.ts), "general" (the model
   * folder's en-us.lm.bin), or the path of an ARPA or sphinx binary file, with `dict` its dictionary.
   */
  lm: string;
  dict: string | null;
};

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Reads TRANSCRIBER_* variables; throws ConfigError naming the first bad one. */
export function loadTranscriberConfig(env: Record<string, string | undefined>): TranscriberConfig {
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
    return value;
  };
  return {
    host: env.TRANSCRIBER_HOST || "127.0.0.1",
    port: int("TRANSCRIBER_PORT", 8786, 0, 65535),
    concurrency: int("TRANSCRIBER_CONCURRENCY", 1, 1, 16),
    maxQueue: int("TRANSCRIBER_MAX_QUEUE", 32, 0, 10_000),
    maxBytes: int("TRANSCRIBER_MAX_MB", 25, 1, 1024) * 1024 * 1024,
    pocketsphinxBinary: env.TRANSCRIBER_POCKETSPHINX || "pocketsphinx_continuous",
    modelDir: env.TRANSCRIBER_MODEL_DIR || "/usr/share/pocketsphinx/model/en-us",
    lm: env.TRANSCRIBER_LM || "calls",
    dict: env.TRANSCRIBER_DICT || null,
  };
}
