// How an agent's access ends: revocation (RFC 7009, signing out everywhere) and the portal's list of
// authorised agents, where a person revokes one.
import { env } from "cloudflare:test";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { as as withCredential, bodyOf, expectStatus, firstOf, ORIGIN } from "../fixtures/client.ts";
import { addMember, createAccount, nextSecond, signIn } from "../fixtures/factory.ts";
import {
  codeFlow,
  discover,
  oauthErrorOf,
  principalOfToken,
  refreshGrant,
  registerClient,
  viaWorker,
  workerFetch,
} from "../fixtures/oauth.ts";

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
    expect(await oauthErrorOf(refreshGrant(as, client, tokens.refresh_token!))).toBe("invalid_grant");
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
    expect(await oauthErrorOf(refreshGrant(as, client, tokens.refresh_token!))).toBe("invalid_grant");
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
    expect(await oauthErrorOf(refreshGrant(as, client, tokens.refresh_token!))).toBe("invalid_grant");
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
    expect(await oauthErrorOf(refreshGrant(as, client, tokens.refresh_token!))).toBe("invalid_grant");
    expect(bodyOf(await owner.client.get("/api/customer/agents"), 200).total).toBe(0);
    const audit = await env.DB.prepare("SELECT action FROM audit_log WHERE customer_id = ? AND action LIKE 'oauth.%' ORDER BY created_at")
      .bind(owner.account.id)
      .all<{ action: string }>();
    expect(audit.results.map((r) => r.action)).toEqual(["oauth.agent_authorized", "oauth.agent_revoked"]);
  });
});
