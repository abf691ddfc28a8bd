// POST /oauth/revoke (RFC 7009): the client gives back a refresh or an access token; the grant
// ends with every token issued under it. 200 whatever the token was (unknown, already revoked).
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { authenticateClient } from "../services/oauth/clients.ts";
import { OAuthError } from "../services/oauth/errors.ts";
import { revokeByToken } from "../services/oauth/grants.ts";
import { formOf } from "./respond.ts";
import { credentialsOf } from "./token.ts";

export async function postRevoke(c: Context<AppEnv>): Promise<Response> {
  const form = await formOf(c);
  const client = await authenticateClient(c.var.services, credentialsOf(c, form));
  if (!form.token) throw new OAuthError("invalid_request", "token is required");
  await revokeByToken(c.var.services, client, form.token);
  return c.body(null, 200, { "Cache-Control": "no-store" });
}
