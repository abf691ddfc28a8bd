// The tokens the OAuth server issues agents, driven by an independent client library (oauth4webapi):
// refresh tokens (rotation with reuse detection) and access tokens (audience, scopes, expiry).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { httpErrorOf } from "../../../worker/api/render-error.ts";
import { InsufficientScope } from "../../../worker/services/errors.ts";
import { mintAccessToken, requireScopes } from "../../../worker/services/oauth/access.ts";
import { ORIGIN } from "../fixtures/client.ts";
import { createAccount, testServices } from "../fixtures/factory.ts";
import { ALL_SCOPES, codeFlow, discover, oauthErrorOf, principalOfToken, refreshGrant, registerClient } from "../fixtures/oauth.ts";

describe("refresh tokens", () => {
  it("rotate; a replayed refresh token revokes the whole family, access tokens included", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const first = await codeFlow(as, client, owner);
    const second = await refreshGrant(as, client, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await principalOfToken(second.access_token)).not.toBeNull();
    const third = await refreshGrant(as, client, second.refresh_token!);

    expect(await oauthErrorOf(refreshGrant(as, client, first.refresh_token!))).toBe("invalid_grant");
    expect(await oauthErrorOf(refreshGrant(as, client, third.refresh_token!))).toBe("invalid_grant");
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
    const outcomes = await Promise.all([0, 1].map(() => oauthErrorOf(refreshGrant(as, client, first.refresh_token!))));
    expect(outcomes.sort()).toEqual(["invalid_grant", null].sort());
  });

  it("refuses another client's refresh token without burning it", async () => {
    const owner = await createAccount();
    const as = await discover();
    const client = await registerClient(as);
    const other = await registerClient(as);
    const tokens = await codeFlow(as, client, owner);
    expect(await oauthErrorOf(refreshGrant(as, other, tokens.refresh_token!))).toBe("invalid_grant");
    expect(await oauthErrorOf(refreshGrant(as, client, tokens.refresh_token!))).toBeNull();
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
