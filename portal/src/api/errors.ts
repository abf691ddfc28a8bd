// One error type for everything the API refuses: the status, the message from `detail`, and for a
// 422 the message of each named field (so a form puts it next to its input).

type FieldProblem = { loc?: (string | number)[]; msg?: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** 422: field name (the last part of `loc`) to its message. */
    readonly fields: Record<string, string> = {},
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The error a response's body describes (`{"detail": "..."}` or a list of field problems). */
export function apiError(response: Response, body: unknown): ApiError {
  const detail = (body as { detail?: unknown } | null)?.detail;
  const retryAfter = Number(response.headers.get("Retry-After")) || null;
  if (Array.isArray(detail)) {
    const fields: Record<string, string> = {};
    for (const problem of detail as FieldProblem[]) {
      const name = problem.loc?.filter((part) => part !== "body" && part !== "query" && part !== "path").join(".") || "form";
      fields[name] ??= problem.msg ?? "invalid";
    }
    const message = Object.entries(fields)
      .map(([name, msg]) => `${name}: ${msg}`)
      .join("; ");
    return new ApiError(response.status, message || "The request was not valid", fields, retryAfter);
  }
  if (typeof detail === "string") return new ApiError(response.status, humanise(detail), {}, retryAfter);
  return new ApiError(response.status, response.statusText || `The service answered ${response.status}`, {}, retryAfter);
}

/** Machine codes such as `owner_required` read as words; sentences are kept as they are. */
export function humanise(detail: string): string {
  if (!/^[a-z0-9_]+$/.test(detail)) return detail;
  const words = detail.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const errorMessage = (error: unknown): string =>
  error instanceof ApiError ? error.message : error instanceof Error ? error.message : "Something went wrong";
