// Throttles over the Limiter Durable Object: one instance per key, fixed windows.
import type { LimitVerdict } from "../../durable-objects/limiter.ts";
import type { Bindings } from "../env.ts";
import { tooManyRequests } from "./errors.ts";

export type Limit = { max: number; windowSec: number };

export const limiterFor = (env: Bindings, key: string) => env.LIMITER.get(env.LIMITER.idFromName(key));

/** Raises 429 with Retry-After when the verdict refused. */
export function enforce(verdict: LimitVerdict, detail: string): void {
  if (!verdict.allowed) throw tooManyRequests(detail, verdict.retryAfterSec);
}
