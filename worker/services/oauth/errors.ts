// What the OAuth endpoints refuse, in the protocol's own codes (RFC 6749 section 5.2, RFC 7591
// section 3.2.2, RFC 8707, RFC 7009). The OAuth front door (worker/oauth/) renders them as
// {"error", "error_description"}; the authorization endpoint sends them back to the client's
// redirect URI when it may, or shows them on its page when it may not.
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "unsupported_token_type"
  | "temporarily_unavailable";

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly description: string;
  /** 400, except invalid_client (401) and temporarily_unavailable (503, 429 with retryAfterSec). */
  readonly status: 400 | 401 | 429 | 503;
  readonly retryAfterSec: number | undefined;

  constructor(
    code: OAuthErrorCode,
    description: string,
    status: 400 | 401 | 429 | 503 = code === "invalid_client" ? 401 : 400,
    retryAfterSec?: number,
  ) {
    super(`${code}: ${description}`);
    this.code = code;
    this.description = description;
    this.status = status;
    this.retryAfterSec = retryAfterSec;
  }
}
