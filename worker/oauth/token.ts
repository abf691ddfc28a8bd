// POST /oauth/token: a code with its PKCE verifier (a new grant), or a refresh token (rotated;
// a spent one revokes the grant). The resource, when sent, must be the one the grant is for.
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { canonicalResource } from "../services/oauth/access.ts";
import { authenticateClient, type ClientCredentials } from "../services/oauth/clients.ts";
import { spendCode } from "../services/oauth/codes.ts";
import { OAuthError } from "../services/oauth/errors.ts";
import { refreshGrant, startGrant } from "../services/oauth/grants.ts";
import { formOf, oauthJson } from "./respond.ts";

/** RFC 6749 section 2.3.1: the Basic credentials are form-urlencoded before base64. */
function basicCredentials(header: string | undefined): ClientCredentials["basic"] {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? "");
  if (!match) return null;
  let decoded: string;
  try {
    decoded = atob(match[1]!);
  } catch {
    throw new OAuthError("invalid_client", "malformed Basic credentials");
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new OAuthError("invalid_client", "malformed Basic credentials");
  // A malformed escape ("%zz", a truncated UTF-8 sequence) is the client's mistake, not ours.
  const unescape = (v: string) => {
    try {
      return decodeURIComponent(v.replace(/\+/g, " "));
    } catch {
      throw new OAuthError("invalid_client", "malformed Basic credentials: bad percent-encoding");
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}

export const credentialsOf = (c: Context<AppEnv>, form: Record<string, string>): ClientCredentials => ({
  basic: basicCredentials(c.req.header("Authorization")),
  clientId: form.client_id,
  clientSecret: form.client_secret,
});

export async function postToken(c: Context<AppEnv>): Promise<Response> {
  const s = c.var.services;
  const form = await formOf(c);
  const client = await authenticateClient(s, credentialsOf(c, form));
  const grantType = form.grant_type;
  if (!grantType) throw new OAuthError("invalid_request", "grant_type is required");
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
  }
  if (!client.grantTypes.includes(grantType)) throw new OAuthError("unauthorized_client", `this client did not register for ${grantType}`);

  if (grantType === "authorization_code") {
    if (!form.code) throw new OAuthError("invalid_request", "code is required");
    const code = await spendCode(s, {
      code: form.code,
      clientId: client.clientId,
      redirectUri: form.redirect_uri,
      verifier: form.code_verifier,
    });
    if (form.resource !== undefined && canonicalResource(form.resource) !== canonicalResource(code.resource)) {
      throw new OAuthError("invalid_target", "resource differs from the authorization request's");
    }
    return oauthJson(c, await startGrant(s, client, code));
  }
  if (!form.refresh_token) throw new OAuthError("invalid_request", "refresh_token is required");
  return oauthJson(c, await refreshGrant(s, client, { refreshToken: form.refresh_token, scope: form.scope, resource: form.resource }));
}
