// Which adapter serves each outside service, chosen by configuration once per Services.
import type { Bindings, Config } from "../env.ts";
import type { Analyser } from "./analysis/analyser.ts";
import { EmbeddedAnalyser } from "./analysis/embedded.ts";
import { OpenAiCompatibleAnalyser } from "./analysis/openai-compatible.ts";
import { WorkersAiAnalyser } from "./analysis/workers-ai.ts";
import { OpenAiCompatibleTranscriber } from "./transcription/openai-compatible.ts";
import type { Transcriber } from "./transcription/transcriber.ts";
import { WorkersAiTranscriber } from "./transcription/workers-ai.ts";

/** The transcription adapter, or null when transcription is off or its service is not configured. */
export function transcriberFrom(config: Config, env: Bindings): Transcriber | null {
  switch (config.TRANSCRIPTION_PROVIDER) {
    case "workers-ai":
      return env.AI ? new WorkersAiTranscriber(env.AI) : null;
    case "openai-compatible":
      return config.TRANSCRIPTION_URL
        ? new OpenAiCompatibleTranscriber({
            baseUrl: config.TRANSCRIPTION_URL,
            model: config.TRANSCRIPTION_MODEL,
            apiKey: config.TRANSCRIPTION_API_KEY,
          })
        : null;
    case "off":
      return null;
  }
}

/** An AI tier's analyser: its provider when that is configured here, else the embedded analyser. */
export function analyserFrom(tier: { provider: string; model: string }, config: Config, env: Bindings): Analyser {
  if (tier.provider === "workers-ai" && env.AI) return new WorkersAiAnalyser(env.AI, tier.model);
  if (tier.provider === "openai-compatible" && config.ANALYSIS_URL) {
    return new OpenAiCompatibleAnalyser({
      baseUrl: config.ANALYSIS_URL,
      model: config.ANALYSIS_MODEL ?? tier.model,
      apiKey: config.ANALYSIS_API_KEY,
      price: { input: config.ANALYSIS_PRICE_INPUT_USD_PER_MTOK, output: config.ANALYSIS_PRICE_OUTPUT_USD_PER_MTOK },
    });
  }
  return new EmbeddedAnalyser();
}
