// Shared pieces of route definitions: the error body every route documents, and JSON bodies.
import { z } from "@hono/zod-openapi";

export const ValidationIssueSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])).openapi({ example: ["body", "email"] }),
    msg: z.string().openapi({ example: "Field required" }),
    type: z.string().openapi({ example: "missing" }),
  })
  .openapi("ValidationIssue");

export const ErrorSchema = z
  .object({
    detail: z.union([z.string(), z.array(ValidationIssueSchema)]).openapi({ example: "Not Found" }),
  })
  .openapi("Error");

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Bad request or rule violation",
  401: "Not authenticated",
  402: "Insufficient balance",
  403: "Not allowed",
  404: "No such record on the account",
  409: "Conflict",
  416: "Range not satisfiable; Content-Range carries the size",
  422: "Validation error; the body names each field",
  429: "Too many requests; Retry-After carries seconds",
  502: "Payment provider error",
  503: "Temporarily unavailable",
};

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** The documented error responses of a route, e.g. errors(401, 404, 422). */
export function errors(...statuses: ErrorStatus[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERROR_DESCRIPTIONS[status]!, content: { "application/json": { schema: ErrorSchema } } },
    ]),
  ) as Record<ErrorStatus, { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }>;
}

export const jsonBody = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonRequest = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});

/** A file answer (audio, capture, archive): the bytes, under each media type it may take. */
export const binaryBody = (description: string, ...mediaTypes: string[]) => ({
  description,
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: z.string().openapi({ type: "string", format: "binary" }) }])),
});

/** A 204 answer with no body. */
export const noContent = (description = "Done") => ({ 204: { description } });
