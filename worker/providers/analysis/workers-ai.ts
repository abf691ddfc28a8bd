// An instruction model on the Workers AI binding, asked for JSON and checked against the strict
// Verdict schema; an answer that is not one gives way to the embedded verdict.
import { ProviderError } from "../provider-error.ts";
import type { AnalysisInput, AnalysisResult, Analyser } from "./analyser.ts";
import { llmResult } from "./llm-verdict.ts";
import { callMessage, PROMPT_VERSION, SYSTEM_PROMPT } from "./prompt.ts";

type AiBinding = { run(model: string, input: Record<string, unknown>): Promise<unknown> };
type AiAnswer = { response?: unknown; usage?: { prompt_tokens?: number; completion_tokens?: number } };

export class WorkersAiAnalyser implements Analyser {
  private readonly ai: AiBinding;
  private readonly model: string;

  constructor(ai: AiBinding, model: string) {
    this.ai = ai;
    this.model = model;
  }

  async analyse(input: AnalysisInput): Promise<AnalysisResult> {
    const started = Date.now();
    let answer: AiAnswer | null;
    try {
      answer = (await this.ai.run(this.model, {
        messages: [
          { role: "system", content: SYSTEM_PROMPT },
          { role: "user", content: callMessage(input) },
        ],
        response_format: { type: "json_object" },
        temperature: 0,
      })) as AiAnswer | null;
    } catch (err) {
      throw new ProviderError(`Workers AI analysis failed: ${(err as Error).message}`, true);
    }
    const call = {
      provider: "workers-ai",
      model: this.model,
      inputTokens: answer?.usage?.prompt_tokens ?? 0,
      outputTokens: answer?.usage?.completion_tokens ?? 0,
      // Workers AI bills in neurons on the account's own plan; no per-call price is known here.
      costMicros: 0,
      started,
    };
    return llmResult(input, answer?.response, call, PROMPT_VERSION);
  }
}
