// The OAuth 2.1 authorization server for agents as they find it and register with it, driven by an
// independent client library (oauth4webapi): discovery (RFC 8414, RFC 9728), dynamic client
// registration (RFC 7591) and client metadata documents.
import { env } from "cloudflare:test";
import * as oauth from "oauth4webapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { newApp } from "../../../worker/app.ts";
import { expectStatus, ORIGIN, request } from "../fixtures/client.ts";
import { createAccount } from "../fixtures/factory.ts";
import {
  ALL_SCOPES,
  authorizationUrl,
  codeFlow,
  discover,
  MCP_RESOURCE,
  oauthErrorOf,
  principalOfToken,
  REDIRECT,
  refreshGrant,
  registerClient,
  serveClientMetadata,
  viaWorker,
  workerFetch,
} from "../fixtures/oauth.ts";

afterEach(() => vi.restoreAllMocks());

describe("discovery", () => {
  it("serves RFC 8414 metadata at the root and under /api, with S256 only, registration, client metadata documents and iss", async () => {
    const as = await discover();
    expect(as.issuer).toBe(ORIGIN);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.response_types_supported).toEqual(["code"]);
    expect(as.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    expect(as.scopes_supported).toEqual(ALL_SCOPES);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.client_id_metadata_document_supported).toBe(true);
    for (const endpoint of ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"] as const) {
      expect(as[endpoint]).toMatch(new RegExp(`^${ORIGIN}/api/oauth/`));
    }
    const underApi = await request("GET", "/api/.well-known/oauth-authorization-server");
    expectStatus(underApi, 200);
    expect(underApi.body).toEqual(JSON.parse(JSON.stringify(as)));
  });

  it("serves RFC 9728 metadata for the MCP endpoint, path-aware at the root and under /api", async () => {
    const resource = new URL(MCP_RESOURCE);
    const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, viaWorker));
    expect(rs.resource).toBe(MCP_RESOURCE);
    expect(rs.authorization_servers).toEqual([ORIGIN]);
    expect(rs.scopes_supported).toEqual(ALL_SCOPES);
    expect(rs.bearer_methods_supported).toEqual(["header"]);
    for (const path of ["/.well-known/oauth-protected-resource", "/api/.well-known/oauth-protected-resource"]) {
      const res = await request("GET", path);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ resource: MCP_RESOURCE });
    }
  });
});

describe("dynamic client registration", () => {
  it("registers a public client without a secret and a confidential one with a secret shown once", async () => {
    const as = await discover();
    const publicClient = await registerClient(as);
    expect(publicClient.client_secret).toBeUndefined();
    expect(publicClient.token_endpoint_auth_method).toBe("none");
    const confidential = await registerClient(as, { token_endpoint_auth_method: "client_secret_basic" });
    expect(confidential.client_secret).toEqual(expect.any(String));
    const row = await env.DB.prepare("SELECT client_secret_hash FROM oauth_clients WHERE client_id = ?")
      .bind(confidential.client_id)
      .first<{ client_secret_hash: string }>();
    expect(row!.client_secret_hash).not.toContain(confidential.client_secret as string);
  });

  it("takes 30 registrations an hour from one address, then answers 429 with Retry-After", async () => {
    const register = () =>
      workerFetch(`${ORIGIN}/api/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "CF-Connecting-IP": "203.0.113.77" },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      });
    for (let i = 0; i < 30; i++) expect((await register()).status).toBe(201);
    const refused = await register();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: string }).error).toBe("temporarily_unavailable");
  });

  it("takes as many as OAUTH_REGISTER_MAX_PER_IP says (npm start lifts it: MCP clients register on each connection)", async () => {
    const app = newApp();
    const register = (limit: string) =>
      app.request(
        "/api/oauth/register",
        {
          method: "POST",
          headers: { "content-type": "application/json", "CF-Connecting-IP": "203.0.113.78" },
          body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
        },
        { ...env, OAUTH_REGISTER_MAX_PER_IP: limit },
      );
    for (let i = 0; i < 35; i++) expect((await register("100000")).status).toBe(201);
    // The same counter under a lower limit: refused at once.
    expect((await register("35")).status).toBe(429);
  });

  it("refuses a redirect URI on plain http off loopback, and an unknown scope", async () => {
    const as = await discover();
    expect(await oauthErrorOf(registerClient(as, { redirect_uris: ["http://agent.example/cb"] }))).toBe("invalid_redirect_uri");
    expect(await oauthErrorOf(registerClient(as, { redirect_uris: ["javascript:alert(1)"] }))).toBe("invalid_redirect_uri");
    expect(await oauthErrorOf(registerClient(as, { scope: "calls:read admin" }))).toBe("invalid_client_metadata");
  });
});

describe("client metadata documents", () => {
  const DOC_URL = "https://agent.example/oauth/client-metadata.json";

  /** Serves `doc` at `url` (each test its own URL: a fetched document is kept until it expires). */
  const serveDocument = (doc: Record<string, unknown>, url = DOC_URL) => serveClientMetadata({ [url]: doc }).served;

  it("identifies a client by the document at its client_id URL and names it on the consent page", async () => {
    const owner = await createAccount();
    const served = serveDocument({
      client_id: DOC_URL,
      client_name: "Document Agent",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    });
    const as = await discover();
    const client: oauth.Client = { client_id: DOC_URL, token_endpoint_auth_method: "none" };
    const tokens = await codeFlow(as, client, owner);
    expect(served.length).toBeGreaterThan(0);
    const principal = await principalOfToken(tokens.access_token);
    expect(principal?.connector).toMatchObject({ clientId: DOC_URL, clientName: "Document Agent" });
    const refreshed = await refreshGrant(as, client, tokens.refresh_token!);
    expect(refreshed.access_token).toEqual(expect.any(String));
  });

  it("refuses a document whose client_id is not its own URL", async () => {
    const docUrl = "https://agent.example/oauth/not-its-own.json";
    serveDocument({ client_id: "https://elsewhere.example/client.json", redirect_uris: [REDIRECT] }, docUrl);
    const as = await discover();
    const url = authorizationUrl(as, {
      clientId: docUrl,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const res = await workerFetch(url, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("metadata document");
  });
});
