// The conventions of the exchange API in one place. Every answer is a JSON object with `status`
// "success" (and the data beside it) or "error" (and a `message`); failures are ExchangeErrors,
// rendered by renderExchangeError with their HTTP status:
//   400 invalid input, the message naming the field ("<field>: <problem>")
//   401 not authenticated (Digest challenges, or a bad legacy signature)
//   402 insufficient balance ("i_account: insufficient balance", ledger.ts)
//   403 account suspended, or a key of the wrong role
//   404 unknown package, ICCID, account or path ("<field>: unknown ...")
//   409 a conflict (username taken)
//   429 rate limit exceeded, with Retry-After
//   500 anything unexpected ("internal error"; the cause is logged without its parameters)
// Requests carry application/x-www-form-urlencoded or multipart form fields on POST (JSON objects
// are accepted too) and query parameters on GET; formOf reads and validates them.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ConfigError } from "../env.ts";
import { describeError } from "../lib/errors.ts";

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

/** 400 naming the field: "<field>: <problem>". */
export const invalidInput = (field: string, problem: string) => new ExchangeError(400, `${field}: ${problem}`);
export const forbidden = (message: string) => new ExchangeError(403, message);
/** 404 naming the field whose value is unknown, e.g. unknown("i_esim_package", "package"). */
export const unknown = (field: string, what: string) => new ExchangeError(404, `${field}: unknown ${what}`);
export const conflict = (field: string, problem: string) => new ExchangeError(409, `${field}: ${problem}`);
export const rateLimited = (retryAfterSec: number) =>
  new ExchangeError(429, "rate limit exceeded", { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSec))) });

type Json = Record<string, unknown>;

/** 200 {status: "success", ...data}. */
export function success(c: Context, data: Json = {}, status: ContentfulStatusCode = 200): Response {
  return c.json({ status: "success", ...data }, status);
}

export function errorBody(message: string) {
  return { status: "error" as const, message };
}

/** The single place where an exchange failure becomes a response. */
export function renderExchangeError(err: Error, c: Context): Response {
  if (err instanceof ExchangeError) return c.json(errorBody(err.message), err.status, err.headers);
  if (err instanceof HTTPException && err.status < 500) return c.json(errorBody(err.message || "bad request"), err.status);
  if (err instanceof ConfigError) console.error(err.message);
  else console.error("exchange: unhandled error", describeError(err));
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
    throw invalidInput("body", "malformed JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw invalidInput("body", "must be a JSON object");
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
      throw invalidInput("body", "malformed form");
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

// ---------------------------------------------------------------------------------------------
// Field types for form schemas: every value arrives as text; an empty value counts as absent.

const blank = (v: unknown) => (v === "" || v === null ? undefined : typeof v === "string" ? v.trim() : v);

export const field = {
  /** Text, trimmed, 1..max characters. */
  text: (max = 255) =>
    z
      .string({ error: "must be text" })
      .min(1, { error: "required" })
      .max(max, { error: `at most ${max} characters` }),
  /** An integer between min and max. */
  integer: (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce
      .number({ error: "must be an integer" })
      .int({ error: "must be an integer" })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  /** A decimal number between min and max. */
  number: (min = -Infinity, max = Infinity) =>
    z.coerce
      .number({ error: "must be a number" })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  /** A USD amount given as decimal text, up to 6 decimals. Kept as text for exact money parsing (worker/lib/money.ts). */
  usd: () => z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, { error: "must be a USD amount such as 12.50" }),
  /** "YYYY-MM-DD HH:MM:SS" in UTC (a date alone means midnight), returned as ISO 8601 with milliseconds. */
  datetime: () =>
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/, { error: "must be YYYY-MM-DD HH:MM:SS (UTC)" })
      .transform((v, ctx) => {
        const iso = `${v.length === 10 ? `${v}T00:00:00` : v.replace(" ", "T")}.000Z`;
        const ms = Date.parse(iso);
        if (Number.isNaN(ms) || new Date(ms).toISOString() !== iso) {
          ctx.addIssue({ code: "custom", message: "not a valid date and time" });
          return z.NEVER;
        }
        return iso;
      }),
  /** Digits only, between min and max of them. */
  digits: (min: number, max: number) =>
    z.string().regex(new RegExp(`^\\d{${min},${max}}$`), { error: `must be ${min === max ? min : `${min} to ${max}`} digits` }),
};

/** A required form field: an empty value answers "<field>: required". */
export const required = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema);
/** An optional form field: absent or empty is undefined. */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema.optional());
/** An optional form field with a default when absent or empty. */
export const withDefault = <T extends z.ZodType>(schema: T, fallback: z.output<T>) => z.preprocess((v) => blank(v) ?? fallback, schema);
/** `pager` and `off` as the spec pages lists: offset-based, `pager` between 1 and max. */
export const paging = (defaultPager: number, maxPager = 100) => ({
  pager: withDefault(field.integer(1, maxPager), defaultPager),
  off: withDefault(field.integer(0), 0),
});
