// The Idempotency-Key header of the purchases (the rules are the service's:
// worker/services/exchange/idempotency.ts): read the key, let the service run the purchase once
// per key, and mark an answer given again with `Idempotent-Replayed: true`.
import { IDEMPOTENCY_HEADER, idempotent } from "../services/exchange/idempotency.ts";
import type { ExchangeContext } from "./context.ts";
import { malformed, success } from "./respond.ts";

/**
 * The key of the header: an sf-string (`"abc"`, as the draft specifies) or, leniently, a bare
 * token; 1-255 visible ASCII characters. Undefined when the header is absent.
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const quoted = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(value);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, "$1") : /^[\x21\x23-\x7e]+$/.test(value) ? value : "";
  if (key.length < 1 || key.length > 255) {
    throw malformed(IDEMPOTENCY_HEADER, 'must be a quoted string of 1-255 visible characters, e.g. "8e03978e-40d5"');
  }
  return key;
}

/**
 * Runs `run` at most once per (account, Idempotency-Key): the first request's answer is stored and
 * replayed to retries. Without the header, `run` simply runs.
 */
export async function runIdempotently(
  c: ExchangeContext,
  scope: string,
  input: unknown,
  run: () => Promise<Record<string, unknown>>,
): Promise<Response> {
  const key = idempotencyKeyOf(c.req.header(IDEMPOTENCY_HEADER));
  if (key === undefined) return success(c, await run());
  const { answer, replayed } = await idempotent(c.var.services, { iAccount: c.var.exchange.iAccount, key, scope, input }, run);
  return success(c, answer, 200, replayed ? { "Idempotent-Replayed": "true" } : undefined);
}
