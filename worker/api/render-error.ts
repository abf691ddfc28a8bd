// The single place where a failure becomes an HTTP response: domain errors get the spec's
// status and body, ApiErrors (raised by the HTTP layer itself) are sent as they are.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, describeError } from "../lib/errors.ts";
import { malformedBody } from "../lib/validation.ts";
import {
  Conflict,
  DomainError,
  Forbidden,
  InsufficientScope,
  InvalidField,
  NotFound,
  PaymentRequired,
  RangeNotSatisfiable,
  Refused,
  TooManyRequests,
  Unauthenticated,
  Unavailable,
  UpstreamFailed,
} from "../services/errors.ts";

/** The HTTP form of a domain error. */
export function httpErrorOf(err: DomainError): ApiError {
  if (err instanceof InvalidField) return new ApiError(422, [{ loc: ["body", ...err.field], msg: err.detail, type: err.type }]);
  if (err instanceof NotFound) return new ApiError(404, err.detail);
  if (err instanceof Conflict) return new ApiError(409, err.detail);
  if (err instanceof InsufficientScope) {
    return new ApiError(403, err.detail, { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${err.scopes.join(" ")}"` });
  }
  if (err instanceof Forbidden) return new ApiError(403, err.detail);
  if (err instanceof Unauthenticated) return new ApiError(401, err.detail, { "WWW-Authenticate": "Bearer" });
  if (err instanceof Refused) return new ApiError(400, err.detail);
  if (err instanceof PaymentRequired) return new ApiError(402, err.detail);
  if (err instanceof TooManyRequests) {
    return new ApiError(429, err.detail, { "Retry-After": String(Math.max(1, Math.ceil(err.retryAfterSec))) });
  }
  if (err instanceof Unavailable) return new ApiError(503, err.detail);
  if (err instanceof UpstreamFailed) return new ApiError(502, err.detail);
  if (err instanceof RangeNotSatisfiable) return new ApiError(416, err.detail, { "Content-Range": `bytes */${err.size}` });
  return new ApiError(500, "Internal Server Error");
}

export function renderError(err: Error, c: Context): Response {
  if (err instanceof DomainError) return renderError(httpErrorOf(err), c);
  if (err instanceof ApiError) {
    return c.json({ detail: err.detail }, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    // Hono's own body parsers raise 400 "Malformed JSON in request body".
    if (err.status === 400 && /malformed/i.test(err.message)) return renderError(malformedBody(), c);
    return c.json({ detail: err.message || "Error" }, err.status);
  }
  console.error("unhandled error", describeError(err));
  return c.json({ detail: "Internal Server Error" }, 500);
}
