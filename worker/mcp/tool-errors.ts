// A service's refusal as the text of an isError tool result: what went wrong in the service's
// own words, and what the agent can do next (the HTTP status a script would have seen, too).
import {
  Conflict,
  type DomainError,
  Forbidden,
  InvalidField,
  NotFound,
  PaymentRequired,
  Refused,
  TooManyRequests,
  Unauthenticated,
  Unavailable,
  UpstreamFailed,
} from "../services/errors.ts";

export function toolErrorText(tool: string, err: DomainError, notFoundAdvice?: string): string {
  const [status, general] = adviceFor(err);
  const advice = err instanceof NotFound && notFoundAdvice ? notFoundAdvice : general;
  return `${tool} refused (${status}): ${what(err)}. ${advice}`;
}

function what(err: DomainError): string {
  if (err instanceof InvalidField) return `${err.field.join(".")}: ${err.detail}`;
  return err.detail;
}

function adviceFor(err: DomainError): [number, string] {
  if (err instanceof InvalidField) return [422, "Correct that argument and call the tool again."];
  if (err instanceof NotFound) {
    return [404, "No such record on this account: list the records first (list_destinations, list_calls, ...) and use an id from there."];
  }
  if (err instanceof Conflict)
    return [409, "The account's current state stands in the way: read it, change or remove what conflicts, then retry."];
  if (err instanceof Forbidden) return [403, "This credential may not do this; ask the account owner to do it in the portal."];
  if (err instanceof Unauthenticated) return [401, "Sign in again (a new token) and retry."];
  if (err instanceof Refused) return [400, "The request breaks a rule of this operation; change what it asks for."];
  if (err instanceof PaymentRequired) return [402, "The balance does not cover it: the account owner can top up in the portal (Billing)."];
  if (err instanceof TooManyRequests) return [429, `Too many attempts: wait ${Math.ceil(err.retryAfterSec)} seconds before retrying.`];
  if (err instanceof Unavailable) return [503, "A part of the platform is busy or unreachable right now: retry in a few seconds."];
  if (err instanceof UpstreamFailed) return [502, "An outside provider failed: retry later."];
  return [500, "Retry later."];
}
