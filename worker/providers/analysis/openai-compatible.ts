// Any OpenAI-compatible /v1/chat/completions endpoint, asked for a JSON object and checked
// against the strict Verdict schema; an answer that is not one gives way to the embedded verdict.
import { ProviderError, providerFailure } from "../provider-error.ts";
import type { AnalysisInput, AnalysisResult, Analyser } from "./analyser.ts";
import { llmResult, tokenCostMicros } from "./llm-verdict.ts";
import { callMessage, PROMPT_VERSION, SYSTEM_PROMPT } from "./prompt.ts";

export type OpenAiChatOptions = {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** USD per million input and output tokens, for the cost recorded with the verdict. */
  price?: { input: number; output: number };
  fetch?: typeof fetch;
};

type ChatAnswer = { choices?: { message?: { content?: string } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number } };

export class OpenAiCompatibleAnalyser implements Analyser {
  private readonly options: OpenAiChatOptions;

  constructor(options: OpenAiChatOptions) {
    this.options = options;
  }

  async analyse(input: AnalysisInput): Promise<AnalysisResult> {
    const started = Date.now();
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    const body = {
      model: this.options.model,
      temperature: 0,
      response_format: { type: "json_object" },
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: callMessage(input) },
      ],
    };
    let res: Response;
    try {
      const url = `${this.options.baseUrl.replace(/\/$/, "")}/chat/completions`;
      res = await (this.options.fetch ?? fetch)(url, { method: "POST", headers, body: JSON.stringify(body) });
    } catch (err) {
      throw new ProviderError(`analysis service unreachable: ${(err as Error).message}`, true);
    }
    if (!res.ok) throw await providerFailure("analysis service", res);
    const answer = (await res.json().catch(() => ({}))) as ChatAnswer;
    const inputTokens = answer.usage?.prompt_tokens ?? 0;
    const outputTokens = answer.usage?.completion_tokens ?? 0;
    const price = this.options.price ?? { input: 0, output: 0 };
    const costMicros = tokenCostMicros(inputTokens, price.input) + tokenCostMicros(outputTokens, price.output);
    const call = { provider: "openai-compatible", model: this.options.model, inputTokens, outputTokens, costMicros, started };
    return llmResult(input, answer.choices?.[0]?.message?.content, call, PROMPT_VERSION);
  }
}
