// The OAuth 2.1 authorization server for agents, driven by an independent client library
// (oauth4webapi): discovery, registration (RFC 7591) and client metadata documents, the code flow
// with PKCE and a resource indicator, rotation with reuse detection, revocation (RFC 7009 and the
// portal), and the refusals each with the protocol's error.
import { env } from "cloudflare:test";
import * as oauth from "oauth4webapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { httpErrorOf } from "../../../worker/api/render-error.ts";
import { newApp } from "../../../worker/app.ts";
import { InsufficientScope } from "../../../worker/services/errors.ts";
import { mintAccessToken, principalFromOAuthToken, requireScopes } from "../../../worker/services/oauth/access.ts";
import { sweepExpiredCodes } from "../../../worker/services/oauth/codes.ts";
import { as as withCredential, bodyOf, expectStatus, firstOf, ORIGIN, request } from "../fixtures/client.ts";
import { addMember, createAccount, nextSecond, signIn, testServices, type Session } from "../fixtures/factory.ts";
import {
  ALL_SCOPES,
  authorizationUrl,
  consent,
  CookieJar,
  discover,
  hiddenFields,
  MCP_RESOURCE,
  oauthErrorOf,
  postForm,
  serveClientMetadata,
  viaWorker,
  workerFetch,
} from "../fixtures/oauth.ts";

const REDIRECT = "https://agent.example/callback";

afterEach(() => vi.restoreAllMocks());

async function registerClient(as: oauth.AuthorizationServer, metadata: Partial<oauth.Client> = {}): Promise<oauth.Client> {
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      client_name: "Test Agent",
      ...metadata,
    },
    viaWorker,
  );
  return oauth.processDynamicClientRegistrationResponse(res);
}

const authOf = (client: oauth.Client) => (client.client_secret ? oauth.ClientSecretBasic(client.client_secret as string) : oauth.None());

/** The whole code flow as an agent runs it; returns the token endpoint's answer. */
async function codeFlow(as: oauth.AuthorizationServer, client: oauth.Client, person: Session, scopes?: string[]) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = authorizationUrl(as, {
    clientId: client.client_id,
    redirectUri: REDIRECT,
    challenge: await oauth.calculatePKCECodeChallenge(verifier),
    state,
  });
  const back = await consent(url, person, { scopes });
  const params = oauth.validateAuthResponse(as, client, back, state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, authOf(client), params, REDIRECT, verifier, {
    additionalParameters: { resource: MCP_RESOURCE },
    ...viaWorker,
  });
  return oauth.processAuthorizationCodeResponse(as, client, res);
}

const refresh = async (as: oauth.AuthorizationServer, client: oauth.Client, token: string) =>
  oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, authOf(client), token, viaWorker));

const principalOfToken = (token: string, resource = MCP_RESOURCE) => principalFromOAuthToken(testServices(), token, resource);

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

describe("the code flow", () => {
  it("issues a connector's tokens bound to the MCP resource, with the scopes the person ticked", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const tokens = await codeFlow(as, client, owner, ["calls:read", "config:write"]);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.scope).toBe("calls:read config:write");
    expect(tokens.expires_in).toBe(900);
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const principal = await principalOfToken(tokens.access_token);
    expect(principal?.via).toBe("connector");
    expect(principal?.customer.id).toBe(owner.account.id);
    expect(principal?.connector).toMatchObject({
      clientId: client.client_id,
      clientName: "Test Agent",
      scopes: ["calls:read", "config:write"],
    });
    // An agent's token is no portal credential.
    expect((await withCredential({ token: tokens.access_token }).get("/api/auth/me")).status).toBe(401);
  });

  it("works for a confidential client authenticating with client_secret_basic", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as, { token_endpoint_auth_method: "client_secret_basic" });
    const tokens = await codeFlow(as, client, owner);
    expect((await principalOfToken(tokens.access_token))?.connector?.scopes).toEqual(ALL_SCOPES);
    const wrong = { ...client, client_secret: "not-the-secret" };
    expect(await oauthErrorOf(refresh(as, wrong, tokens.refresh_token!))).toBe("invalid_client");
  });

  it("answers access_denied when the person denies, with state and iss", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      state: "s1",
    });
    const back = await consent(url, owner, { action: "deny" });
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s1");
    expect(back.searchParams.get("iss")).toBe(ORIGIN);
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("refuses a wrong PKCE verifier, a code used twice and another redirect URI with invalid_grant", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as, { redirect_uris: [REDIRECT, "https://agent.example/other"] });
    const verifier = oauth.generateRandomCodeVerifier();
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(verifier),
      state: "x",
    });
    const exchange = async (params: URLSearchParams, redirect: string, v: string) =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirect, v, viaWorker),
      );

    const params = oauth.validateAuthResponse(as, client, await consent(url, owner), "x");
    expect(await oauthErrorOf(exchange(params, REDIRECT, oauth.generateRandomCodeVerifier()))).toBe("invalid_grant");
    // The code was spent by that attempt: even the right verifier cannot use it now.
    expect(await oauthErrorOf(exchange(params, REDIRECT, verifier))).toBe("invalid_grant");

    const again = oauth.validateAuthResponse(as, client, await consent(url, owner), "x");
    expect(await oauthErrorOf(exchange(again, "https://agent.example/other", verifier))).toBe("invalid_grant");

    const third = oauth.validateAuthResponse(as, client, await consent(url, owner), "x");
    expect(await oauthErrorOf(exchange(third, REDIRECT, verifier))).toBeNull();
  });

  it("shows a redirect URI the client did not register on its own page, never redirecting to it", async () => {
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: "https://attacker.example/cb",
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const res = await workerFetch(url, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("not one the client registered");
  });

  it("refuses a foreign resource with invalid_target, and a missing or plain PKCE challenge with invalid_request", async () => {
    const as = await discover();
    const client = await registerClient(as);
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
    const errorFor = async (url: URL) => {
      const res = await workerFetch(url, { redirect: "manual" });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get("location")!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get("iss")).toBe(ORIGIN);
      return back.searchParams.get("error");
    };
    expect(
      await errorFor(
        authorizationUrl(as, { clientId: client.client_id, redirectUri: REDIRECT, challenge, resource: "https://other.example/api/mcp" }),
      ),
    ).toBe("invalid_target");
    expect(await errorFor(authorizationUrl(as, { clientId: client.client_id, redirectUri: REDIRECT }))).toBe("invalid_request");
    const plain = authorizationUrl(as, { clientId: client.client_id, redirectUri: REDIRECT, challenge });
    plain.searchParams.set("code_challenge_method", "plain");
    expect(await errorFor(plain)).toBe("invalid_request");
    expect(
      await errorFor(authorizationUrl(as, { clientId: client.client_id, redirectUri: REDIRECT, challenge, scope: "calls:read admin" })),
    ).toBe("invalid_scope");
  });

  it("offers a person without an account the portal's sign-up, which returns to this same request (issue 28)", async () => {
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const page = await (await workerFetch(url, { redirect: "manual" })).text();
    const href = /href="(\/app\/sign-up\?return_to=[^"]+)"/.exec(page)?.[1];
    expect(href, page).toBeDefined();
    const back = new URL(new URL(href!.replace(/&amp;/g, "&"), ORIGIN).searchParams.get("return_to")!, ORIGIN);
    expect(back.pathname).toBe(url.pathname);
    for (const name of ["client_id", "redirect_uri", "code_challenge", "code_challenge_method", "response_type"]) {
      expect(back.searchParams.get(name), name).toBe(url.searchParams.get(name));
    }
  });

  it("refuses a consent posted without the page's CSRF token or from another site", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const jar = new CookieJar();
    const page = await workerFetch(url, { redirect: "manual" });
    jar.take(page);
    const fields = hiddenFields(await page.text());
    const action = `${ORIGIN}/api/oauth/authorize`;
    const signIn = await postForm(action, jar, [...Object.entries(fields), ["email", owner.email], ["password", owner.password]]);
    const consentFields = hiddenFields(await signIn.text());

    const forged = await postForm(action, jar, [
      ...Object.entries({ ...consentFields, csrf: "forged".repeat(8) }),
      ["grant_scope", "calls:read"],
      ["action", "approve"],
    ]);
    expect(forged.status).toBe(403);
    const crossSite = await workerFetch(action, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: "https://evil.example" },
      body: new URLSearchParams([...Object.entries(consentFields), ["grant_scope", "calls:read"], ["action", "approve"]]).toString(),
    });
    expect(crossSite.status).toBe(403);
    const codes = await env.DB.prepare("SELECT COUNT(*) AS n FROM oauth_codes WHERE client_id = ?")
      .bind(client.client_id)
      .first<{ n: number }>();
    expect(codes!.n).toBe(0);
  });

  it("signs in with a portal access token posted by the portal instead of a password", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const jar = new CookieJar();
    const page = await workerFetch(url, { redirect: "manual" });
    jar.take(page);
    const action = `${ORIGIN}/api/oauth/authorize`;
    const fields = Object.entries(hiddenFields(await page.text()));
    const expired = await postForm(action, jar, [...fields, ["access_token", "not-a-portal-token"]]);
    expect(await expired.text()).toContain("portal session has expired");
    const signedIn = await postForm(action, jar, [...fields, ["access_token", owner.token]]);
    const consentPage = await signedIn.text();
    expect(consentPage).toContain(`Signed in as <strong>${owner.email}</strong>`);
    expect(consentPage).toContain("Test Agent");
    expect(consentPage).toContain("agent.example");
    const approved = await postForm(action, jar, [
      ...Object.entries(hiddenFields(consentPage)),
      ["grant_scope", "calls:read"],
      ["action", "approve"],
    ]);
    expect(approved.status).toBe(302);
    expect(new URL(approved.headers.get("location")!).searchParams.get("code")).toEqual(expect.any(String));
  });

  it("sends a two-factor account to the portal instead of taking its password alone", async () => {
    const owner = await createAccount();
    await env.DB.prepare("UPDATE customers SET twofa_enabled = 1 WHERE id = ?").bind(owner.account.id).run();
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const jar = new CookieJar();
    const page = await workerFetch(url, { redirect: "manual" });
    jar.take(page);
    const fields = Object.entries(hiddenFields(await page.text()));
    const res = await postForm(`${ORIGIN}/api/oauth/authorize`, jar, [...fields, ["email", owner.email], ["password", owner.password]]);
    const html = await res.text();
    expect(html).toContain("second factor");
    expect(html).not.toContain('value="approve"');
    // The portal, where the person signed in with their passkey, posts its session's token.
    const viaPortal = await postForm(`${ORIGIN}/api/oauth/authorize`, jar, [...fields, ["access_token", owner.token]]);
    expect(await viaPortal.text()).toContain('value="approve"');
  });

  it("forgets expired codes at the cron's sweep; a code exchanged late is invalid_grant", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const verifier = oauth.generateRandomCodeVerifier();
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(verifier),
      state: "late",
    });
    const params = oauth.validateAuthResponse(as, client, await consent(url, owner), "late");
    await sweepExpiredCodes(testServices(), new Date(Date.now() + 301_000));
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM oauth_codes WHERE client_id = ?")
      .bind(client.client_id)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    const late = oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, viaWorker);
    expect(await oauthErrorOf(late.then((res) => oauth.processAuthorizationCodeResponse(as, client, res)))).toBe("invalid_grant");
  });

  it("refuses a wrong password on the sign-in form and issues nothing", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const jar = new CookieJar();
    const page = await workerFetch(url, { redirect: "manual" });
    jar.take(page);
    const res = await postForm(`${ORIGIN}/api/oauth/authorize`, jar, [
      ...Object.entries(hiddenFields(await page.text())),
      ["email", owner.email],
      ["password", "wrong-password-123"],
    ]);
    const html = await res.text();
    expect(html).toContain("Invalid email or password");
    expect(html).not.toContain('value="approve"');
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
    const refreshed = await refresh(as, client, tokens.refresh_token!);
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

describe("refresh tokens", () => {
  it("rotate; a replayed refresh token revokes the whole family, access tokens included", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const first = await codeFlow(as, client, owner);
    const second = await refresh(as, client, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await principalOfToken(second.access_token)).not.toBeNull();
    const third = await refresh(as, client, second.refresh_token!);

    expect(await oauthErrorOf(refresh(as, client, first.refresh_token!))).toBe("invalid_grant");
    expect(await oauthErrorOf(refresh(as, client, third.refresh_token!))).toBe("invalid_grant");
    expect(await principalOfToken(third.access_token)).toBeNull();
    const grant = await env.DB.prepare("SELECT revoked_reason FROM oauth_grants WHERE customer_id = ?")
      .bind(owner.account.id)
      .first<{ revoked_reason: string }>();
    expect(grant!.revoked_reason).toBe("replay");
  });

  it("two refreshes racing with one token get one successor; the loser's replay ends the grant", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const first = await codeFlow(as, client, owner);
    const outcomes = await Promise.all([0, 1].map(() => oauthErrorOf(refresh(as, client, first.refresh_token!))));
    expect(outcomes.sort()).toEqual(["invalid_grant", null].sort());
  });

  it("refuses another client's refresh token without burning it", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const other = await registerClient(as);
    const tokens = await codeFlow(as, client, owner);
    expect(await oauthErrorOf(refresh(as, other, tokens.refresh_token!))).toBe("invalid_grant");
    expect(await oauthErrorOf(refresh(as, client, tokens.refresh_token!))).toBeNull();
  });
});

describe("access tokens", () => {
  it("are refused for another resource, and a token minted for another resource is refused here", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const tokens = await codeFlow(as, client, owner);
    expect(await principalOfToken(tokens.access_token, "https://other.example/api/mcp")).toBeNull();
    const principal = (await principalOfToken(tokens.access_token))!;
    const s = testServices();
    const foreign = await mintAccessToken(s, {
      issuer: ORIGIN,
      resource: "https://other.example/api/mcp",
      userId: principal.user.id,
      customerId: principal.customer.id,
      grantId: principal.connector!.grantId,
      clientId: client.client_id,
      scopes: ALL_SCOPES,
    });
    expect(await principalOfToken(foreign.token)).toBeNull();
    expect(await principalOfToken(owner.token)).toBeNull();
  });

  it("requireScopes refuses a connector lacking a scope with 403 insufficient_scope naming every scope the call needs", async () => {
    const owner = await createAccount();
    const as = await discover();
    const tokens = await codeFlow(as, await registerClient(as), owner, ["calls:read"]);
    const principal = (await principalOfToken(tokens.access_token))!;
    expect(() => requireScopes(principal, ["calls:read"])).not.toThrow();
    let thrown: unknown;
    try {
      requireScopes(principal, ["calls:read", "config:write"]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InsufficientScope);
    const http = httpErrorOf(thrown as InsufficientScope);
    expect(http.status).toBe(403);
    expect(http.detail).toBe("insufficient_scope");
    expect(http.headers?.["WWW-Authenticate"]).toBe('Bearer error="insufficient_scope", scope="calls:read config:write"');
    // A person's own credential is not scoped.
    expect(() => requireScopes({ ...principal, via: "api_key", connector: null }, ["config:write"])).not.toThrow();
  });
});

describe("revocation", () => {
  it("signing out everywhere ends the person's agents too", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const tokens = await codeFlow(as, client, owner);
    nextSecond();
    expect((await owner.client.post("/api/auth/logout-all")).status).toBe(204);
    expect(await principalOfToken(tokens.access_token)).toBeNull();
    expect(bodyOf(await withCredential({ token: await signIn(owner.email, owner.password) }).get("/api/customer/agents"), 200).total).toBe(
      0,
    );
    expect(await oauthErrorOf(refresh(as, client, tokens.refresh_token!))).toBe("invalid_grant");
  });

  it("answers at /oauth as well as /api/oauth", async () => {
    const as = await discover();
    const client = await registerClient(as);
    const res = await workerFetch(`${ORIGIN}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: client.client_id }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "invalid_request", error_description: "token is required" });
  });

  it("RFC 7009: revoking the refresh token ends the grant and its access tokens", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const tokens = await codeFlow(as, client, owner);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, viaWorker));
    expect(await principalOfToken(tokens.access_token)).toBeNull();
    expect(await oauthErrorOf(refresh(as, client, tokens.refresh_token!))).toBe("invalid_grant");
    // An unknown token is answered 200 too.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), "nothing-we-issued", viaWorker));
  });

  it("revoking an access token ends its grant too; another client's token is left alone", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const other = await registerClient(as);
    const tokens = await codeFlow(as, client, owner);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, other, oauth.None(), tokens.access_token, viaWorker));
    expect(await principalOfToken(tokens.access_token)).not.toBeNull();
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, viaWorker));
    expect(await principalOfToken(tokens.access_token)).toBeNull();
    expect(await oauthErrorOf(refresh(as, client, tokens.refresh_token!))).toBe("invalid_grant");
  });
});

describe("authorised agents in the portal", () => {
  it("lists an account's agents (a member only their own) and revokes one; another account's is 404", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const stranger = await createAccount();
    const as = await discover();
    const client = await registerClient(as, { client_name: "Portal Agent" });
    const tokens = await codeFlow(as, client, owner, ["calls:read"]);

    const list = await owner.client.get("/api/customer/agents");
    expectStatus(list, 200);
    expect(list.body.total).toBe(1);
    const agent = firstOf(list.body.items, "an agent");
    expect(agent).toMatchObject({
      client_id: client.client_id,
      client_name: "Portal Agent",
      redirect_host: "agent.example",
      scopes: ["calls:read"],
      user_email: owner.email,
    });
    expect(bodyOf(await member.client.get("/api/customer/agents"), 200).total).toBe(0);
    expect(bodyOf(await stranger.client.get("/api/customer/agents"), 200).total).toBe(0);

    expect((await stranger.client.delete(`/api/customer/agents/${agent.grant_id}`)).status).toBe(404);
    expect((await member.client.delete(`/api/customer/agents/${agent.grant_id}`)).status).toBe(404);
    expect(await principalOfToken(tokens.access_token)).not.toBeNull();

    expect((await owner.client.delete(`/api/customer/agents/${agent.grant_id}`)).status).toBe(204);
    expect(await principalOfToken(tokens.access_token)).toBeNull();
    expect(await oauthErrorOf(refresh(as, client, tokens.refresh_token!))).toBe("invalid_grant");
    expect(bodyOf(await owner.client.get("/api/customer/agents"), 200).total).toBe(0);
    const audit = await env.DB.prepare("SELECT action FROM audit_log WHERE customer_id = ? AND action LIKE 'oauth.%' ORDER BY created_at")
      .bind(owner.account.id)
      .all<{ action: string }>();
    expect(audit.results.map((r) => r.action)).toEqual(["oauth.agent_authorized", "oauth.agent_revoked"]);
  });
});
