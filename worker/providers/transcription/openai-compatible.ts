// Any OpenAI-compatible /v1/audio/transcriptions endpoint: OpenAI itself, a self-hosted Whisper
// server, or the offline engine `npm start` runs (transcriber/). Asks for verbose_json so the
// answer carries timed segments.
import { z } from "zod";
import { ProviderError, providerFailure } from "../provider-error.ts";
import type { ChannelAudio, ChannelTranscript, Transcriber, TranscriberInfo } from "./transcriber.ts";

const Answer = z.object({
  text: z.string(),
  language: z.string().nullable().optional(),
  duration: z.number().nullable().optional(),
  segments: z
    .array(z.object({ start: z.number(), end: z.number(), text: z.string() }))
    .nullable()
    .optional(),
});

export type OpenAiCompatibleOptions = {
  /** Up to and including /v1, e.g. http://127.0.0.1:8786/v1. */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  fetch?: typeof fetch;
};

export class OpenAiCompatibleTranscriber implements Transcriber {
  readonly info: TranscriberInfo;
  private readonly options: OpenAiCompatibleOptions;

  constructor(options: OpenAiCompatibleOptions) {
    this.options = options;
    this.info = { provider: "openai-compatible", model: options.model };
  }

  async transcribe(audio: ChannelAudio): Promise<ChannelTranscript> {
    const form = new FormData();
    form.set("file", new File([audio.wav], `${audio.speaker}.wav`, { type: "audio/wav" }));
    form.set("model", this.options.model);
    form.set("response_format", "verbose_json");
    form.append("timestamp_granularities[]", "segment");
    const headers: Record<string, string> = this.options.apiKey ? { Authorization: `Bearer ${this.options.apiKey}` } : {};
    const send = this.options.fetch ?? fetch;
    let res: Response;
    try {
      res = await send(`${this.options.baseUrl.replace(/\/$/, "")}/audio/transcriptions`, { method: "POST", headers, body: form });
    } catch (err) {
      throw new ProviderError(`transcription service unreachable: ${(err as Error).message}`, true);
    }
    if (!res.ok) throw await providerFailure("transcription service", res);
    const parsed = Answer.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new ProviderError("transcription service answered something other than verbose_json", false);
    const { text, language, duration, segments } = parsed.data;
    const timed = segments ?? (text.trim() ? [{ start: 0, end: duration ?? 0, text }] : []);
    return {
      text: text.trim(),
      segments: timed.map((s) => ({ start: s.start, end: s.end, text: s.text.trim() })).filter((s) => s.text),
      language: language ?? null,
      audioSeconds: duration ?? timed.at(-1)?.end ?? 0,
    };
  }
}
