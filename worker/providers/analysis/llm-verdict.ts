// What the LLM adapters share: reading the model's answer as the strict Verdict.
import { ProviderError } from "../provider-error.ts";
import { VerdictSchema, type Verdict } from "./analyser.ts";

/** The model's text (or object) as a Verdict; anything else is a failure worth one more try. */
export function verdictFrom(answer: unknown): Verdict {
  let value = answer;
  if (typeof answer === "string") {
    const json = /\{[\s\S]*\}/.exec(answer)?.[0];
    try {
      value = json ? JSON.parse(json) : null;
    } catch {
      value = null;
    }
  }
  const parsed = VerdictSchema.safeParse(value);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join(".") || "(root)").join(", ");
    throw new ProviderError(`the model's verdict did not match the schema (${where})`, true);
  }
  return parsed.data;
}

/** Micro-dollars for a number of tokens at a price per million tokens in USD. */
export const tokenCostMicros = (tokens: number, usdPerMillion: number) => Math.ceil(tokens * usdPerMillion);
