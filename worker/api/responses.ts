// Shared pieces of route definitions: the error body every route documents, and JSON bodies.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { MAX_BODY_BYTES } from "../lib/body-limit.ts";

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
  413: `Request body larger than ${MAX_BODY_BYTES} bytes`,
  416: "Range not satisfiable; Content-Range carries the size",
  422: "Validation error; the body names each field",
  429: "Too many requests; Retry-After carries seconds",
  502: "Payment provider error",
  503: "Temporarily unavailable",
};

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

const errorResponse = (status: ErrorStatus) => ({
  description: ERROR_DESCRIPTIONS[status]!,
  content: { "application/json": { schema: ErrorSchema } },
});

/** The documented error responses of a route, e.g. errors(401, 404, 422). */
export function errors(...statuses: ErrorStatus[]) {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)])) as Record<
    ErrorStatus,
    ReturnType<typeof errorResponse>
  >;
}

const CREDENTIALS = ["BearerAuth", "ApiKeyAuth"];

const isZod = (schema: unknown) => typeof schema === "object" && schema !== null && "_zod" in schema;

/**
 * The answers of what runs before a route's handler, documented on every operation they apply
 * to, so that no route has to remember them: 413 from the app-wide body limit (lib/body-limit.ts)
 * wherever a request body is taken; 422 from the validation hook wherever a path, query, header
 * or body schema is checked; 401 and 403 (no credential; a suspended account, a temporary
 * password, a member where the owner is needed) wherever a bearer token or API key is required.
 */
export function documentCommonResponses(api: Pick<OpenAPIHono, "openAPIRegistry">): void {
  for (const definition of api.openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    const { request, responses, security } = definition.route;
    const add = (status: ErrorStatus) => (responses[status] ??= errorResponse(status));
    const bodies = Object.values(request?.body?.content ?? {}).map((media) => (media && "schema" in media ? media.schema : undefined));
    if (request?.body) add(413);
    if ([request?.params, request?.query, request?.headers, ...bodies].some(isZod)) add(422);
    if (security?.some((requirement) => CREDENTIALS.some((scheme) => scheme in requirement))) {
      add(401);
      add(403);
    }
  }
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
