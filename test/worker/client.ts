// An HTTP client for the Worker under test: requests go through the real entry point
// (exports.default.fetch), with the same headers a script or browser would send.
// Every answer of a documented /api operation is checked against /api/openapi.json on the way
// (openapi-validator.ts): a response the document does not describe fails the test that got it.
import { exports } from "cloudflare:workers";
import { ResponseValidator, type OpenApiDocument } from "./openapi-validator.ts";

export type Reply<T = any> = { status: number; body: T; headers: Headers };

export type RequestOptions = {
  body?: unknown;
  /** Sent as-is, not JSON-encoded (for malformed-body tests). */
  rawBody?: string;
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
};

export const ORIGIN = "https://api.test";

/** A documentation-range address per request unless a test names one: throttles are per source. */
const anyIp = () => `198.51.100.${Math.floor(Math.random() * 254) + 1}`;

export async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("Authorization", `Bearer ${options.token}`);
  if (options.apiKey) headers.set("X-API-Key", options.apiKey);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", anyIp());
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const res = await exports.default.fetch(new Request(`${ORIGIN}${path}`, { method, headers, body }));
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  const reply = { status: res.status, body: (type.includes("json") && text ? JSON.parse(text) : text) as T, headers: res.headers };
  if (path.startsWith("/api/") && path !== DOCUMENT_PATH) {
    const mismatch = (await responseValidator()).check({ method, path, status: res.status, contentType: type, body: reply.body });
    if (mismatch) throw new OpenApiMismatch(mismatch);
  }
  return reply;
}

const DOCUMENT_PATH = "/api/openapi.json";

/** A response the OpenAPI document does not describe. */
export class OpenApiMismatch extends Error {
  override name = "OpenApiMismatch";
}

let validator: Promise<ResponseValidator> | undefined;

/** The validator for the document this Worker serves, fetched once per test file. */
export function responseValidator(): Promise<ResponseValidator> {
  validator ??= (async () => {
    const res = await exports.default.fetch(new Request(`${ORIGIN}${DOCUMENT_PATH}`));
    if (res.status !== 200) throw new Error(`GET ${DOCUMENT_PATH} answered ${res.status}`);
    return new ResponseValidator((await res.json()) as OpenApiDocument);
  })();
  validator.catch(() => (validator = undefined));
  return validator;
}

/** A client bound to one credential: `as(session).get("/api/auth/me")`. */
export function as(credential: { token?: string; apiKey?: string }) {
  const send = (method: string) => (path: string, body?: unknown, headers?: Record<string, string>) =>
    request(method, path, { ...credential, body, headers });
  return { get: send("GET"), post: send("POST"), put: send("PUT"), patch: send("PATCH"), delete: send("DELETE") };
}
