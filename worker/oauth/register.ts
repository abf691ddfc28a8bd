// POST /oauth/register (RFC 7591): anonymous dynamic registration, so any MCP client can start
// the code flow. A public client (token_endpoint_auth_method none) gets no secret; a
// confidential one gets its secret once. Registrations per source address are limited
// (OAUTH_REGISTER_MAX_PER_IP an hour; npm start lifts it, as MCP clients register on each connection).
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { clientIp } from "../http/client-ip.ts";
import { AUTH_METHODS, registerClient } from "../services/oauth/clients.ts";
import { OAuthError } from "../services/oauth/errors.ts";
import { oauthJson } from "./respond.ts";

const ClientMetadataBody = z.object({
  redirect_uris: z.array(z.string().max(2000)).max(10),
  client_name: z.string().max(200).optional(),
  token_endpoint_auth_method: z.enum(AUTH_METHODS as [string, ...string[]]).optional(),
  grant_types: z.array(z.string()).max(5).optional(),
  response_types: z.array(z.string()).max(5).optional(),
  scope: z.string().max(500).optional(),
});

export async function postRegister(c: Context<AppEnv>): Promise<Response> {
  const s = c.var.services;
  const verdict = await s.limiter(`oauth-register-ip:${clientIp(c)}`).hit(s.config.OAUTH_REGISTER_MAX_PER_IP, 3600);
  if (!verdict.allowed)
    throw new OAuthError("temporarily_unavailable", "too many registrations from this address", 429, verdict.retryAfterSec);
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new OAuthError("invalid_client_metadata", "the body must be a JSON object");
  }
  const parsed = ClientMetadataBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".");
    throw new OAuthError(
      field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata",
      `${field}: ${issue.message}`,
    );
  }
  return oauthJson(c, await registerClient(s, parsed.data as Parameters<typeof registerClient>[1]), 201);
}
