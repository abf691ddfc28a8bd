// A legacy v1 signature is good once (worker/exchange/legacy.ts): spending it writes it to
// spent_tokens until its time window closes.
import { spend } from "../identity/spent-tokens.ts";
import type { ExchangeServices } from "./context.ts";

/** True the first time a signature is presented; false when it was spent before. */
export const spendLegacySignature = (s: Pick<ExchangeServices, "db">, signature: string, windowEndsSec: number) =>
  spend(s.db, `exchange-legacy:${signature.toLowerCase()}`, windowEndsSec);
