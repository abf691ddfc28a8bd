// An authorization request (RFC 6749 section 4.1.1 with PKCE, RFC 7636, and a resource
// indicator, RFC 8707), read from the query of GET /oauth/authorize or the consent form's
// hidden fields. Until the client is known, the redirect URI one it registered and the
// response_type ours (code), a problem is shown on our page: registration is anonymous, so a
// registered redirect URI may be anyone's, and answering a malformed request with a redirect
// would make us an open redirector (RFC 9700 section 4.11.2). Only a request that passes those
// three has its other problems sent back to the client (RFC 6749 section 4.1.2.1).
import { isOAuthScope, SUPPORTED_SCOPES } from "../resources/oauth.ts";
import type { Services } from "../services/context.ts";
import { canonicalResource, mcpResourceUrl } from "../services/oauth/access.ts";
import { clientForAuthorization, isMetadataDocumentId, redirectRegistered, type OAuthClient } from "../services/oauth/clients.ts";
import type { OAuthErrorCode } from "../services/oauth/errors.ts";

export type AuthorizationRequest = {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scopes: string[];
  resource: string;
};

/** The fields that travel from the query to the consent form and back. */
export const REQUEST_FIELDS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
  "resource",
] as const;

export type Checked =
  | { ok: true; request: AuthorizationRequest }
  /** Shown on our page (400, or 429 with Retry-After): the request is not one we may answer by a redirect. */
  | { ok: false; page: string; status: 400 | 429; retryAfterSec?: number }
  /** Sent to the client's redirect URI. */
  | { ok: false; redirect: { uri: string; state: string | undefined; error: OAuthErrorCode; description: string } };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

const shown = (page: string): Checked => ({ ok: false, page, status: 400 });

/** `source`: the address the request came from (metadata document fetches are limited per source). */
export async function checkAuthorizationRequest(s: Services, params: Record<string, string | undefined>, source: string): Promise<Checked> {
  const clientId = params.client_id;
  if (!clientId) return shown("The request names no client (client_id is missing).");
  const found = await clientForAuthorization(s, clientId, source);
  if (!found.ok) {
    if (found.reason === "rate_limited") {
      return {
        ok: false,
        page: "Too many client metadata documents were fetched for your address; try again later.",
        status: 429,
        retryAfterSec: found.retryAfterSec ?? 60,
      };
    }
    return shown(
      isMetadataDocumentId(clientId)
        ? `The client's metadata document at ${clientId} could not be fetched or does not hold (a public address, its client_id its own URL, with redirect_uris).`
        : "This client is not registered here.",
    );
  }
  const client = found.client;
  const redirectUri = params.redirect_uri;
  if (!redirectUri) return shown("The request has no redirect_uri.");
  if (!redirectRegistered(client, redirectUri)) return shown("The redirect_uri is not one the client registered.");
  if (params.response_type !== "code") {
    return shown(
      params.response_type
        ? `The response_type ${params.response_type} is not supported (unsupported_response_type): only code.`
        : "The request has no response_type (invalid_request): it must be code.",
    );
  }

  // From here on the request is one this server answers: its problems go back to the client.
  const refuse = (error: OAuthErrorCode, description: string): Checked => ({
    ok: false,
    redirect: { uri: redirectUri, state: params.state, error, description },
  });
  if (!params.code_challenge) return refuse("invalid_request", "code_challenge is required (PKCE with S256)");
  if (params.code_challenge_method !== "S256") return refuse("invalid_request", "code_challenge_method must be S256");
  if (!CHALLENGE.test(params.code_challenge))
    return refuse("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters)");
  // RFC 8707 section 2: with no resource the server may apply its default; the MCP server is our only resource.
  if (params.resource !== undefined && canonicalResource(params.resource) !== mcpResourceUrl(s.origin)) {
    return refuse("invalid_target", `this server issues tokens for ${mcpResourceUrl(s.origin)} only`);
  }
  const allowed = client.scope ? client.scope.split(" ").filter(Boolean) : SUPPORTED_SCOPES;
  const asked = params.scope ? params.scope.split(" ").filter(Boolean) : allowed;
  const unknown = asked.find((scope) => !isOAuthScope(scope));
  if (unknown) return refuse("invalid_scope", `${unknown} is not a scope of this server (${SUPPORTED_SCOPES.join(", ")})`);
  if (asked.some((scope) => !allowed.includes(scope))) return refuse("invalid_scope", "the client did not register for these scopes");
  if (!client.grantTypes.includes("authorization_code")) return refuse("unauthorized_client", "the client may not use the code flow");
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      state: params.state,
      codeChallenge: params.code_challenge,
      scopes: [...new Set(asked)],
      resource: mcpResourceUrl(s.origin),
    },
  };
}

/** The redirect back to the client (RFC 9207: `iss` says which server answered). */
export function redirectBack(uri: string, issuer: string, fields: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set("iss", issuer);
  return url.href;
}
