// Turns zod failures into the 422 body: a list of {loc, msg, type}, loc naming where the
// field sits ("body", "query", "path", "header") and then the path inside it.
import { z } from "@hono/zod-openapi";
import { ApiError, type ValidationIssue } from "./errors.ts";

const FIELD_REQUIRED = "Field required";

const LOCATION: Record<string, string> = {
  json: "body",
  form: "body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "cookie",
};

export function issuesOf(error: z.ZodError, target: string): ValidationIssue[] {
  const where = LOCATION[target] ?? target;
  return error.issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    msg: issue.message,
    type: issue.message === FIELD_REQUIRED ? "missing" : issue.code,
  }));
}

// A field left out reads "Field required" rather than "expected string, received undefined".
z.config({
  customError: (issue) => (issue.code === "invalid_type" && issue.input === undefined ? FIELD_REQUIRED : undefined),
});

export function validationError(error: z.ZodError, target: string): ApiError {
  return new ApiError(422, issuesOf(error, target));
}

/** The body could not be parsed as JSON at all. */
export function malformedBody(): ApiError {
  return new ApiError(422, [{ loc: ["body"], msg: "Malformed JSON in request body", type: "json_invalid" }]);
}
