// How the OAuth endpoints answer: JSON never cached (RFC 6749 section 5.1), errors as
// {"error", "error_description"} with the protocol's status.
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { OAuthError } from "../services/oauth/errors.ts";

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export const oauthJson = (c: Context<AppEnv>, body: unknown, status: 200 | 201 = 200) => c.json(body as object, status, NO_STORE);

export function oauthErrorResponse(c: Context<AppEnv>, err: OAuthError): Response {
  const headers: Record<string, string> = { ...NO_STORE };
  if (err.status === 401) headers["WWW-Authenticate"] = 'Basic realm="oauth"';
  if (err.retryAfterSec) headers["Retry-After"] = String(err.retryAfterSec);
  return c.json({ error: err.code, error_description: err.description }, err.status, headers);
}

/** Runs an endpoint, answering its OAuth errors in the protocol's form (other failures reach the app's renderer). */
export const oauthEndpoint =
  (handler: (c: Context<AppEnv>) => Promise<Response>) =>
  async (c: Context<AppEnv>): Promise<Response> => {
    try {
      return await handler(c);
    } catch (err) {
      if (err instanceof OAuthError) return oauthErrorResponse(c, err);
      throw err;
    }
  };

/** The form fields of a POST, as strings; anything but application/x-www-form-urlencoded is refused. */
export async function formOf(c: Context<AppEnv>): Promise<Record<string, string>> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded");
  }
  const params = new URLSearchParams(new TextDecoder().decode(await c.req.arrayBuffer()));
  const form: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in form) throw new OAuthError("invalid_request", `${key} is repeated`);
    form[key] = value;
  }
  return form;
}
