// The OAuth server's findings of the security review: the authorization endpoint is no open
// redirector; client metadata documents are fetched only from public addresses, read no further
// than 16 KB, limited per source address and kept until they expire; malformed Basic credentials
// are the client's error; a replayed code revokes what it issued; a request without a resource
// is bound to the MCP server.
import { env } from "cloudflare:test";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { decodeJwt } from "jose";
import * as oauth from "oauth4webapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { grantFor } from "../../../worker/lib/durable-objects.ts";
import { bodyOf, ORIGIN } from "../fixtures/client.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import {
  authorizationUrl,
  consent,
  discover,
  MCP_RESOURCE,
  oauthErrorOf,
  REDIRECT,
  registerClient,
  serveClientMetadata,
  viaWorker,
  workerFetch,
} from "../fixtures/oauth.ts";

afterEach(() => vi.restoreAllMocks());

/** Where an attacker's anonymously registered client sends people. */
const ATTACKER = "https://phishing.example/landing";
const challenge = () => oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());

/** An MCP initialize with the bearer token: 200 while the token works, 401 once it does not. */
const mcpStatus = async (token: string) =>
  (
    await workerFetch(MCP_RESOURCE, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    })
  ).status;

/** The person approves; returns the code's callback parameters and the verifier. */
async function approvedCode(as: oauth.AuthorizationServer, client: oauth.Client, person: Session, resource?: string | null) {
  const verifier = oauth.generateRandomCodeVerifier();
  const url = authorizationUrl(as, {
    clientId: client.client_id,
    redirectUri: REDIRECT,
    challenge: await oauth.calculatePKCECodeChallenge(verifier),
    state: "st",
    resource,
  });
  const params = oauth.validateAuthResponse(as, client, await consent(url, person), "st");
  return { params, verifier };
}

const exchange = async (
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  code: { params: URLSearchParams; verifier: string },
  additionalParameters?: Record<string, string>,
) =>
  oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), code.params, REDIRECT, code.verifier, {
      ...(additionalParameters ? { additionalParameters } : {}),
      ...viaWorker,
    }),
  );

describe("finding 1: the authorization endpoint is no open redirector", () => {
  it("shows an unsupported or missing response_type on its own page (400), never redirecting to the client's registered URI", async () => {
    const as = await discover();
    const client = await registerClient(as, { redirect_uris: [ATTACKER] });
    for (const responseType of ["x", "token", null]) {
      const url = authorizationUrl(as, { clientId: client.client_id, redirectUri: ATTACKER, challenge: await challenge() });
      if (responseType === null) url.searchParams.delete("response_type");
      else url.searchParams.set("response_type", responseType);
      const res = await workerFetch(url, { redirect: "manual" });
      expect(res.status, String(responseType)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const page = await res.text();
      expect(page).toContain("This authorization cannot go on");
      expect(page).toContain("response_type");
      expect(page).not.toContain("phishing.example");
    }
  });

  it("answers the consent form's POST with a bad response_type on its page too", async () => {
    const as = await discover();
    const client = await registerClient(as, { redirect_uris: [ATTACKER] });
    const res = await workerFetch(`${ORIGIN}/api/oauth/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `__Host-oauth_csrf=${"c".repeat(40)}`, origin: ORIGIN },
      body: new URLSearchParams({
        csrf: "c".repeat(40),
        response_type: "x",
        client_id: client.client_id,
        redirect_uri: ATTACKER,
        action: "approve",
      }).toString(),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("still sends the problems of a request with a known client, its redirect URI and code back to the client", async () => {
    const as = await discover();
    const client = await registerClient(as);
    const url = authorizationUrl(as, { clientId: client.client_id, redirectUri: REDIRECT, challenge: await challenge(), scope: "admin" });
    const res = await workerFetch(url, { redirect: "manual" });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("error")).toBe("invalid_scope");
  });
});

describe("finding 4: client metadata documents", () => {
  const documentAt = (url: string, name = "Doc Agent") => ({
    client_id: url,
    client_name: name,
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
  });
  let server: Promise<oauth.AuthorizationServer> | undefined;
  const authorize = async (docUrl: string, ip?: string) =>
    workerFetch(
      authorizationUrl(await (server ??= discover()), { clientId: docUrl, redirectUri: REDIRECT, challenge: await challenge() }),
      {
        redirect: "manual",
        ...(ip ? { headers: { "CF-Connecting-IP": ip } } : {}),
      },
    );
  const storedCopy = (clientId: string) =>
    env.DB.prepare("SELECT client_name, metadata_expires_at FROM oauth_clients WHERE client_id = ?")
      .bind(clientId)
      .first<{ client_name: string; metadata_expires_at: string | null }>();

  it("refuses a document whose host name resolves to a private address, without fetching it", async () => {
    const docUrl = "https://intranet-agent.example/oauth/client.json";
    const server = serveClientMetadata({ [docUrl]: documentAt(docUrl) }, { "intranet-agent.example": ["10.1.2.3"] });
    const res = await authorize(docUrl);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("metadata document");
    expect(server.lookups).toContain("intranet-agent.example");
    expect(server.served).toEqual([]);
    expect(await storedCopy(docUrl)).toBeNull();

    // The same document from a public address is taken.
    const publicUrl = "https://public-agent.example/oauth/client.json";
    const ok = serveClientMetadata({ [publicUrl]: documentAt(publicUrl) });
    expect((await authorize(publicUrl)).status).toBe(200);
    expect(ok.served).toEqual([publicUrl]);
  });

  it("stops reading a document past 16 KB and cancels the rest of its body", async () => {
    const docUrl = "https://endless-agent.example/oauth/client.json";
    const chunk = new Uint8Array(1024).fill(0x20);
    let pulled = 0;
    let cancelled = false;
    serveClientMetadata({
      [docUrl]: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled++;
              if (pulled > 1024) controller.close();
              else controller.enqueue(chunk);
            },
            cancel() {
              cancelled = true;
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    });
    const res = await authorize(docUrl);
    expect(res.status).toBe(400);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(64);
    expect(await storedCopy(docUrl)).toBeNull();
  });

  it("fetches at most 30 documents an hour per source address, then answers 429 with Retry-After on its page", async () => {
    const urls = Array.from({ length: 31 }, (_, i) => `https://many-${i}.example/client.json`);
    const server = serveClientMetadata(Object.fromEntries(urls.map((u) => [u, documentAt(u)])));
    const ip = "203.0.113.61";
    for (const url of urls.slice(0, -1)) expect((await authorize(url, ip)).status, url).toBe(200);
    const refused = await authorize(urls.at(-1)!, ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("location")).toBeNull();
    expect(server.served).not.toContain(urls.at(-1));
    // A document already held costs no fetch: it is still served to that address.
    expect((await authorize(urls[0]!, ip)).status).toBe(200);
    // Another address is not affected.
    expect((await authorize(urls.at(-1)!, "203.0.113.62")).status).toBe(200);
  });

  it("keeps a fetched document until it expires (no fetch and no write per authorization), then fetches it again", async () => {
    const docUrl = "https://cached-agent.example/oauth/client.json";
    let name = "First Name";
    const server = serveClientMetadata({
      [docUrl]: () => Response.json(documentAt(docUrl, name), { headers: { "cache-control": "public, max-age=600" } }),
    });
    const before = Date.now();
    const first = await authorize(docUrl);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("First Name");
    const copy = await storedCopy(docUrl);
    expect(copy!.client_name).toBe("First Name");
    const expiresMs = Date.parse(copy!.metadata_expires_at!);
    expect(expiresMs).toBeGreaterThanOrEqual(before + 600_000);
    expect(expiresMs).toBeLessThanOrEqual(Date.now() + 600_000);

    name = "Second Name";
    const second = await authorize(docUrl);
    expect(second.status).toBe(200);
    expect(await second.text()).toContain("First Name");
    expect(server.served).toEqual([docUrl]);
    expect(await storedCopy(docUrl)).toEqual(copy);

    await env.DB.prepare("UPDATE oauth_clients SET metadata_expires_at = ? WHERE client_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), docUrl)
      .run();
    const third = await authorize(docUrl);
    expect(await third.text()).toContain("Second Name");
    expect(server.served).toEqual([docUrl, docUrl]);
    const refreshed = await storedCopy(docUrl);
    expect(refreshed!.client_name).toBe("Second Name");
    expect(Date.parse(refreshed!.metadata_expires_at!)).toBeGreaterThan(Date.now());
  });
});

describe("finding 5: malformed Basic client credentials", () => {
  const basic = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;

  for (const [path, form] of [
    ["/api/oauth/token", { grant_type: "authorization_code", code: "x", code_verifier: "v".repeat(43) }],
    ["/api/oauth/revoke", { token: "x" }],
  ] as const) {
    it(`answers a bad percent-encoding in Basic credentials at ${path} with 401 invalid_client`, async () => {
      for (const [user, password] of [
        ["%zz", "secret"],
        ["client", "%E0%A4%A"],
      ]) {
        const res = await workerFetch(`${ORIGIN}${path}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", Authorization: basic(user!, password!) },
          body: new URLSearchParams(form).toString(),
        });
        expect(res.status, `${user}:${password}`).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
        expect(await res.json()).toMatchObject({ error: "invalid_client" });
      }
    });
  }
});

describe("finding 7: a replayed authorization code", () => {
  it("is refused and revokes the grant it started: the first access token stops working on /api/mcp, the refresh token too", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const code = await approvedCode(as, client, owner);
    const tokens = await exchange(as, client, code);
    expect(await mcpStatus(tokens.access_token)).toBe(200);

    expect(await oauthErrorOf(exchange(as, client, code))).toBe("invalid_grant");
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    const refreshed = oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, viaWorker);
    expect(await oauthErrorOf(refreshed.then((res) => oauth.processRefreshTokenResponse(as, client, res)))).toBe("invalid_grant");

    const grantId = decodeJwt(tokens.access_token).gid as string;
    const grant = await env.DB.prepare("SELECT revoked_at, revoked_reason FROM oauth_grants WHERE id = ?")
      .bind(grantId)
      .first<{ revoked_at: string | null; revoked_reason: string }>();
    expect(grant).toMatchObject({ revoked_at: expect.any(String), revoked_reason: "code_replay" });
    const audit = await env.DB.prepare("SELECT detail FROM audit_log WHERE customer_id = ? AND action = 'oauth.agent_revoked'")
      .bind(owner.account.id)
      .first<{ detail: string }>();
    expect(JSON.parse(audit!.detail)).toMatchObject({ grant_id: grantId, reason: "code_replay" });
    expect(bodyOf(await owner.client.get("/api/customer/agents"), 200).total).toBe(0);
  });

  it("a code whose first exchange failed (wrong verifier) started no grant: its replay revokes nothing", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const other = await approvedCode(as, client, owner);
    const tokens = await exchange(as, client, other);
    const code = await approvedCode(as, client, owner);
    expect(await oauthErrorOf(exchange(as, client, { ...code, verifier: oauth.generateRandomCodeVerifier() }))).toBe("invalid_grant");
    expect(await oauthErrorOf(exchange(as, client, code))).toBe("invalid_grant");
    expect(await mcpStatus(tokens.access_token)).toBe(200);
  });

  it("a grant revoked while its exchange is under way starts revoked", async () => {
    const grantId = crypto.randomUUID();
    const stub = grantFor(env, grantId);
    expect(await stub.revoke("code_replay")).toBeNull();
    const record = { grantId, customerId: "c", userId: "u", clientId: "k", scopes: [], resource: MCP_RESOURCE, createdAtMs: Date.now() };
    expect(await stub.start(record, "hash", Date.now() + 60_000)).toEqual({ active: false, revokedReason: "code_replay" });
    expect((await stub.status()).active).toBe(false);
  });
});

describe("issue 27: a request without a resource indicator", () => {
  it("is bound to the MCP server: authorization and token exchange without resource yield a token that works on /api/mcp", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const code = await approvedCode(as, client, owner, null);
    const tokens = await exchange(as, client, code);
    expect(decodeJwt(tokens.access_token).aud).toBe(MCP_RESOURCE);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    const grant = await env.DB.prepare("SELECT resource FROM oauth_grants WHERE customer_id = ?")
      .bind(owner.account.id)
      .first<{ resource: string }>();
    expect(grant!.resource).toBe(MCP_RESOURCE);
  });

  it("still refuses a resource that is not ours, at /authorize and at /token", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const foreign = "https://other.example/api/mcp";
    const url = authorizationUrl(as, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      challenge: await challenge(),
      resource: foreign,
    });
    const res = await workerFetch(url, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");

    const code = await approvedCode(as, client, owner, null);
    expect(await oauthErrorOf(exchange(as, client, code, { resource: foreign }))).toBe("invalid_target");
  });
});
