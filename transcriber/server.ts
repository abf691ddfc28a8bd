// The offline transcription service: an OpenAI-compatible POST /v1/audio/transcriptions on
// loopback over CMU PocketSphinx from Debian (see README.md). Configuration from the environment:
//   TRANSCRIBER_HOST (127.0.0.1), TRANSCRIBER_PORT (8786), TRANSCRIBER_CONCURRENCY (1),
//   TRANSCRIBER_MAX_QUEUE (32), TRANSCRIBER_MAX_MB (25), TRANSCRIBER_POCKETSPHINX, TRANSCRIBER_MODEL_DIR,
//   TRANSCRIBER_LM (calls: the phone-call model, built on first use; general; or a file), TRANSCRIBER_DICT.
// Exits with 3, saying what is missing, when the engine is not installed (scripts/ensure-transcriber.sh).
import type { AddressInfo } from "node:net";
import { createTranscriberServer } from "./app.ts";
import { ConfigError, loadTranscriberConfig } from "./config.ts";
import { EngineUnavailable } from "./engine.ts";
import { ensureCallsModel } from "./lm/build.ts";
import { PocketSphinxEngine } from "./pocketsphinx.ts";

export const EXIT_ENGINE_MISSING = 3;

let config;
try {
  config = loadTranscriberConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`transcriber: ${err.message}`);
  process.exit(2);
}

/** The decoder's language model and dictionary: the phone-call model is built here when missing or stale. */
function languageModel(lm: string, dict: string | null): { lm?: string; dict?: string; lmName: string } {
  if (lm === "general") return { lmName: "general", ...(dict ? { dict } : {}) };
  if (lm !== "calls") return { lm, lmName: "custom", ...(dict ? { dict } : {}) };
  try {
    const started = Date.now();
    const model = ensureCallsModel();
    if (model.built) console.log(`transcriber: built the phone-call language model in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { lm: model.lm, dict: dict ?? model.dict, lmName: "calls" };
  } catch (err) {
    console.error(`transcriber: could not build the phone-call language model (${(err as Error).message}); using the general one`);
    return { lmName: "general" };
  }
}

const engine = new PocketSphinxEngine({
  binary: config.pocketsphinxBinary,
  modelDir: config.modelDir,
  ...languageModel(config.lm, config.dict),
});
try {
  await engine.check();
} catch (err) {
  if (!(err instanceof EngineUnavailable)) throw err;
  console.error(`transcriber: ${err.message}; transcription is off (run: bash scripts/ensure-transcriber.sh)`);
  process.exit(EXIT_ENGINE_MISSING);
}

const server = createTranscriberServer(engine, config);
server.listen(config.port, config.host, () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`transcriber on http://${address}:${port}/v1 (${engine.info.engine}, model ${engine.info.model})`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void engine.close().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
