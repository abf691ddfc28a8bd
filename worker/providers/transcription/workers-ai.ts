// Whisper on the Workers AI binding (production). The model takes the audio as base64 and
// answers timed segments.
import { z } from "zod";
import { base64 } from "../../lib/crypto.ts";
import { ProviderError } from "../provider-error.ts";
import type { ChannelAudio, ChannelTranscript, Transcriber, TranscriberInfo } from "./transcriber.ts";

export const WORKERS_AI_WHISPER = "@cf/openai/whisper-large-v3-turbo";

const Answer = z.object({
  text: z.string(),
  transcription_info: z.object({ language: z.string().optional(), duration: z.number().optional() }).partial().optional(),
  segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() })).optional(),
});

type AiBinding = { run(model: string, input: Record<string, unknown>): Promise<unknown> };

export class WorkersAiTranscriber implements Transcriber {
  readonly info: TranscriberInfo;
  private readonly ai: AiBinding;

  constructor(ai: AiBinding, model = WORKERS_AI_WHISPER) {
    this.ai = ai;
    this.info = { provider: "workers-ai", model };
  }

  async transcribe(audio: ChannelAudio): Promise<ChannelTranscript> {
    let raw: unknown;
    try {
      raw = await this.ai.run(this.info.model, { audio: base64(audio.wav) });
    } catch (err) {
      throw new ProviderError(`Workers AI transcription failed: ${(err as Error).message}`, true);
    }
    const parsed = Answer.safeParse(raw);
    if (!parsed.success) throw new ProviderError("Workers AI transcription answered an unexpected shape", false);
    const { text, transcription_info: info, segments = [] } = parsed.data;
    return {
      text: text.trim(),
      segments: segments.map((s) => ({ start: s.start, end: s.end, text: s.text.trim() })).filter((s) => s.text),
      language: info?.language ?? null,
      audioSeconds: info?.duration ?? segments.at(-1)?.end ?? 0,
    };
  }
}
