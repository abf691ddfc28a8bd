// What an MCP host keeps for one server while the SDK's OAuth flow runs: its registration, the PKCE
// verifier, the tokens, and the authorization URL it would open in a browser (a test plays the
// person there). Shared by the Worker tests and the portal tests that connect an agent.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

export class MemoryAgent implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  readonly clientMetadataUrl: string | undefined;
  private client: OAuthClientInformationMixed | undefined;
  private stored: OAuthTokens | undefined;
  private verifier = "";
  private readonly options: { name: string; redirect: string; state: string };

  /** `clientMetadataUrl`: the agent is identified by a client metadata document rather than registering. */
  constructor(options: { name: string; redirect: string; state: string; clientMetadataUrl?: string }) {
    this.options = options;
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl() {
    return this.options.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.name,
      redirect_uris: [this.options.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state() {
    return this.options.state;
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }

  tokens() {
    return this.stored;
  }

  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }
}
