// The OAuth 2.1 code flow for agents, driven by an independent client library (oauth4webapi): PKCE,
// the resource indicator, the person's consent, and the refusals each with the protocol's error.
import { env } from "cloudflare:test";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { sweepExpiredCodes } from "../../../worker/services/oauth/codes.ts";
import { as as withCredential, ORIGIN } from "../fixtures/client.ts";
import { createAccount, testServices } from "../fixtures/factory.ts";
import {
  ALL_SCOPES,
  authorizationUrl,
  codeFlow,
  consent,
  CookieJar,
  discover,
  hiddenFields,
  oauthErrorOf,
  postForm,
  principalOfToken,
  REDIRECT,
  refreshGrant,
  registerClient,
  viaWorker,
  workerFetch,
} from "../fixtures/oauth.ts";

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
    expect(await oauthErrorOf(refreshGrant(as, wrong, tokens.refresh_token!))).toBe("invalid_client");
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
