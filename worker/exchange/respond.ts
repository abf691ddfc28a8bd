// The conventions of the exchange API in one place. Every answer is a JSON object with `status`
// "success" (and the data beside it) or "error" (and a `message`). The verbs
// (worker/services/exchange/) refuse with the domain errors (worker/services/errors.ts, worded by
// services/exchange/errors.ts as "<field>: <problem>"); the front door's own refusals
// (authentication, unknown paths) are ExchangeErrors. renderExchangeError answers both:
//   400 invalid input, the message naming the field ("<field>: <problem>")    InvalidField
//   401 not authenticated (Digest challenges, or a bad legacy signature)       ExchangeError
//   402 insufficient balance ("i_account: insufficient balance")              PaymentRequired
//   403 account suspended, or a key of the wrong role                          Forbidden
//   404 unknown package, ICCID, account or path ("<field>: unknown ...")       NotFound
//   409 a conflict (username taken, a request with this key in progress)       Conflict
//   422 an Idempotency-Key already used for a different request               Refused
//   429 rate limit exceeded, with Retry-After                                  TooManyRequests
//   500 anything unexpected ("internal error"; the cause is logged without its parameters)
// Requests carry application/x-www-form-urlencoded or multipart form fields on POST (JSON objects
// are accepted too) and query parameters on GET; formOf reads them and validates them against
// the verb's schema.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { ConfigError } from "../env.ts";
import { describeError } from "../lib/errors.ts";
import {
  Conflict,
  DomainError,
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

export class ExchangeError extends Error {
  readonly status: ContentfulStatusCode;
  /** A list value sends the header once per element (two WWW-Authenticate challenges). */
  readonly headers: Record<string, string | string[]>;

  constructor(status: ContentfulStatusCode, message: string, headers: Record<string, string | string[]> = {}) {
    super(message);
    this.name = "ExchangeError";
    this.status = status;
    this.headers = headers;
  }
}

/** 400 for a request the exchange cannot read, before any verb: "<field>: <problem>" (body, a header). */
export const malformed = (field: string, problem: string) => new ExchangeError(400, `${field}: ${problem}`);

/** The exchange's form of a domain error: its status and message; null for one the exchange never gets. */
export function exchangeErrorOf(err: DomainError): ExchangeError | null {
  if (err instanceof InvalidField) return new ExchangeError(400, `${err.field.join(".")}: ${err.detail}`);
  if (err instanceof NotFound) return new ExchangeError(404, err.detail);
  if (err instanceof Conflict) return new ExchangeError(409, err.detail);
  if (err instanceof Forbidden) return new ExchangeError(403, err.detail);
  if (err instanceof Unauthenticated) return new ExchangeError(401, err.detail);
  if (err instanceof PaymentRequired) return new ExchangeError(402, err.detail);
  if (err instanceof Refused) return new ExchangeError(422, err.detail);
  if (err instanceof TooManyRequests) {
    return new ExchangeError(429, err.detail, { "Retry-After": String(Math.max(1, Math.ceil(err.retryAfterSec))) });
  }
  if (err instanceof Unavailable) return new ExchangeError(503, err.detail);
  if (err instanceof UpstreamFailed) return new ExchangeError(502, err.detail);
  return null;
}

type Json = Record<string, unknown>;

/** 200 {status: "success", ...data}. */
export function success(c: Context, data: Json = {}, status: ContentfulStatusCode = 200, headers?: Record<string, string>): Response {
  return c.json({ status: "success", ...data }, status, headers);
}

export function errorBody(message: string) {
  return { status: "error" as const, message };
}

/** The single place where an exchange failure becomes a response. */
export function renderExchangeError(err: Error, c: Context): Response {
  const failure = err instanceof DomainError ? (exchangeErrorOf(err) ?? err) : err;
  if (failure instanceof ExchangeError) return c.json(errorBody(failure.message), failure.status, failure.headers);
  if (failure instanceof HTTPException && failure.status < 500) return c.json(errorBody(failure.message || "bad request"), failure.status);
  if (failure instanceof ConfigError) console.error(failure.message);
  else console.error("exchange: unhandled error", describeError(failure));
  return c.json(errorBody("internal error"), 500);
}

export const notFoundResponse = (c: Context) => c.json(errorBody("not found"), 404);

// ---------------------------------------------------------------------------------------------
// Form input

type Raw = Record<string, unknown>;

/** A body that must be one JSON object; 400 "body: ..." when it is not. */
export function jsonObjectOf(text: string): Raw {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw malformed("body", "malformed JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw malformed("body", "must be a JSON object");
  return body as Raw;
}

/** The request's fields: query parameters on GET/HEAD; on POST the query merged with the body's form (or JSON) fields. */
export async function rawFieldsOf(c: Context): Promise<Raw> {
  const fields: Raw = { ...c.req.query() };
  if (c.req.method === "GET" || c.req.method === "HEAD") return fields;
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (type.includes("application/json")) {
    const text = await c.req.text();
    if (text.trim() === "") return fields;
    for (const [k, v] of Object.entries(jsonObjectOf(text))) fields[k] = v === null ? undefined : typeof v === "object" ? v : String(v);
    return fields;
  }
  if (type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")) {
    let body: Record<string, string | File | (string | File)[]>;
    try {
      body = await c.req.parseBody({ all: true });
    } catch {
      throw malformed("body", "malformed form");
    }
    for (const [k, v] of Object.entries(body)) {
      // A field sent twice keeps its last value, as PHP did.
      const last = Array.isArray(v) ? v[v.length - 1] : v;
      fields[k] = last;
    }
    return fields;
  }
  // No body, or one of another type: the query alone (curl -X POST with no -d sends none).
  return fields;
}

/** The field's name, and what is wrong with it, for a 400 message. */
function describeIssue(issue: z.core.$ZodIssue, raw: Raw): string {
  const field = issue.path.length ? issue.path.map(String).join(".") : "body";
  const top = issue.path[0];
  const given = typeof top === "string" ? raw[top] : undefined;
  const missing = typeof top === "string" && (given === undefined || given === "");
  return `${field}: ${missing ? "required" : issue.message}`;
}

/** Validates the fields against a zod object; 400 "<field>: <problem>" (every problem, "; "-separated) when they do not fit. */
export function parseFields<T extends z.ZodType>(schema: T, raw: Raw): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  // One problem per field (the first), every field named.
  const byField = new Map<string, string>();
  for (const issue of parsed.error.issues) {
    const key = issue.path.map(String).join(".");
    if (!byField.has(key)) byField.set(key, describeIssue(issue, raw));
  }
  throw new ExchangeError(400, [...byField.values()].join("; "));
}

/** Reads the request's form fields (query parameters on GET) and validates them. */
export async function formOf<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  return parseFields(schema, await rawFieldsOf(c));
}
