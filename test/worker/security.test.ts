// Secrets appear only in the response that creates them; one account never reads another's.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { as, request } from "./client.ts";
import { addMember, createAccount, refresh, signInBrowser } from "./fixtures.ts";

describe("secrets", () => {
  it("never echo a password, hash, API key secret or refresh token after the creating response", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const browser = await signInBrowser(owner.email, owner.password);
    const key = (await owner.client.post("/api/auth/api-keys", { name: "k" })).body.key as string;
    const hashes = (
      await env.DB.prepare("SELECT password_hash FROM users WHERE customer_id = ?").bind(owner.account.id).all<{
        password_hash: string;
      }>()
    ).results.map((r) => r.password_hash);
    const secrets = [owner.password, member.password, key, browser.cookie.split("=")[1]!, ...hashes];

    const replies = [
      await owner.client.get("/api/auth/me"),
      await owner.client.get("/api/customer/users"),
      await owner.client.get("/api/auth/api-keys"),
      await owner.client.get("/api/customer/profile"),
      await owner.client.get("/api/customer/balance"),
      await member.client.get("/api/auth/me"),
      await refresh(browser.cookie),
      await request("POST", "/api/auth/login", { body: { email: owner.email, password: owner.password } }),
    ];
    for (const reply of replies) {
      const text = JSON.stringify(reply.body);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});

describe("tenancy", () => {
  it("answers 404 to every id of another account and leaves it untouched", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const memberOfB = await addMember(b);
    const keyOfB = (await b.client.post("/api/auth/api-keys", { name: "b" })).body.id;
    for (const res of [
      await a.client.patch(`/api/customer/users/${memberOfB.userId}`, { name: "hijack" }),
      await a.client.post(`/api/customer/users/${memberOfB.userId}/resend-invite`),
      await a.client.delete(`/api/auth/api-keys/${keyOfB}`),
      await a.client.delete(`/api/auth/passkeys/members/${memberOfB.userId}`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect((await b.client.get("/api/customer/users")).body.items[1].name).toBe("Member");
    expect((await b.client.get("/api/auth/api-keys")).body[0].revoked_at).toBeNull();
  });

  it("shows each account only its own users, keys and ledger", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await b.client.post("/api/auth/api-keys", { name: "b-only" });
    expect((await a.client.get("/api/customer/users")).body.items.map((u: any) => u.email)).toEqual([a.email]);
    expect((await a.client.get("/api/auth/api-keys")).body).toEqual([]);
    expect((await a.client.get("/api/customer/ledger")).body.total).toBe(1);
    expect((await as({ token: a.token }).get("/api/auth/me")).body.id).toBe(a.account.id);
  });
});
