// The one error type of the API. Every failure a client sees is an ApiError, rendered
// as {"detail": ...} by renderError (api/render-error.ts), whatever raised it. Service verbs
// raise domain errors instead (services/errors.ts); the HTTP layer maps those to ApiErrors.
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };
export type ErrorDetail = string | ValidationIssue[];

export class ApiError extends HTTPException {
  readonly detail: ErrorDetail;
  readonly headers: Record<string, string>;

  constructor(status: ContentfulStatusCode, detail: ErrorDetail, headers: Record<string, string> = {}) {
    super(status, { message: typeof detail === "string" ? detail : "validation error" });
    this.detail = detail;
    this.headers = headers;
  }
}

export const badRequest = (detail = "Bad request") => new ApiError(400, detail);
export const unauthorized = (detail = "Not authenticated") => new ApiError(401, detail, { "WWW-Authenticate": "Bearer" });
export const forbidden = (detail: string) => new ApiError(403, detail);
export const notFound = (detail = "Not Found") => new ApiError(404, detail);
export const conflict = (detail = "Conflict") => new ApiError(409, detail);
export const tooManyRequests = (detail: string, retryAfterSec: number) =>
  new ApiError(429, detail, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSec))) });
export const serviceUnavailable = (detail: string) => new ApiError(503, detail);

/** A 422 for one field, for rules that zod cannot express (e.g. "must differ from the current password"). */
export const invalidField = (loc: (string | number)[], msg: string, type = "value_error") => new ApiError(422, [{ loc, msg, type }]);

// What a log line may say about a failure: names and messages down the cause chain, with the
// bound parameters of a failed query left out (they can hold hashes and ciphertexts).
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 5; e = e.cause) {
    parts.push(`${e.name}: ${e.message.replace(/\nparams:[\s\S]*$/, "")}`);
  }
  return parts.join(" <- ") || String(err);
}
