// Secrets appear only in the response that creates them; one account never reads another's.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { newApp } from "../../../worker/app.ts";
import { loadConfig } from "../../../worker/env.ts";
import { checkPassword } from "../../../worker/services/identity/auth.ts";
import { as, bodyOf, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import {
  addMember,
  createAccount,
  makePlatformAdmin,
  newPassword,
  nextSecond,
  refresh,
  signInBrowser,
  testServices,
  uniqueEmail,
} from "../fixtures/factory.ts";

describe("secrets", () => {
  it("never echo a password, hash, API key secret or refresh token after the creating response", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const browser = await signInBrowser(owner.email, owner.password);
    const key = bodyOf(await owner.client.post("/api/auth/api-keys", { name: "k" }), 201).key as string;
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
    const keyOfB = bodyOf(await b.client.post("/api/auth/api-keys", { name: "b" }), 201).id;
    for (const res of [
      await a.client.patch(`/api/customer/users/${memberOfB.userId}`, { name: "hijack" }),
      await a.client.post(`/api/customer/users/${memberOfB.userId}/resend-invite`),
      await a.client.delete(`/api/auth/api-keys/${keyOfB}`),
      await a.client.delete(`/api/auth/passkeys/members/${memberOfB.userId}`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect(bodyOf(await b.client.get("/api/customer/users"), 200).items[1]?.name).toBe("Member");
    expect(bodyOf(await b.client.get("/api/auth/api-keys"), 200)[0]?.revoked_at).toBeNull();
  });

  it("shows each account only its own users, keys and ledger", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await b.client.post("/api/auth/api-keys", { name: "b-only" });
    expect(bodyOf(await a.client.get("/api/customer/users"), 200).items.map((u) => u.email)).toEqual([a.email]);
    expect((await a.client.get("/api/auth/api-keys")).body).toEqual([]);
    expect(bodyOf(await a.client.get("/api/customer/ledger"), 200).total).toBe(1);
    expect(bodyOf(await as({ token: a.token }).get("/api/auth/me"), 200).id).toBe(a.account.id);
  });
});

describe("credential management (issue 20, finding 5)", () => {
  it("refuses an API key: a leaked key mints no key, removes no passkey, invites or resets no member", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const minted = await owner.client.post("/api/auth/api-keys", { name: "script" });
    expectStatus(minted, 201);
    const script = as({ apiKey: minted.body.key });
    for (const res of [
      await script.post("/api/auth/api-keys", { name: "more" }),
      await script.delete(`/api/auth/api-keys/${minted.body.id}`),
      await script.get("/api/auth/passkeys"),
      await script.delete(`/api/auth/passkeys/members/${member.userId}`),
      await script.post("/api/auth/passkeys/register/begin"),
      await script.post("/api/customer/users", { email: uniqueEmail("stranger"), name: "Stranger" }),
      await script.patch(`/api/customer/users/${member.userId}`, { is_active: false }),
      await script.post(`/api/customer/users/${member.userId}/resend-invite`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: "portal_session_required" });
    }
    const keys = bodyOf(await owner.client.get("/api/auth/api-keys"), 200);
    expect(keys.map((k) => [k.name, k.revoked_at])).toEqual([["script", null]]);
    expect(bodyOf(await owner.client.get("/api/customer/users"), 200).items).toHaveLength(2);
    expect((await member.client.get("/api/auth/me")).status).toBe(200);
    // What a script is for still works with it.
    expect((await script.get("/api/customer/users")).status).toBe(200);
  });
});

describe("impersonation (issue 20, finding 6)", () => {
  async function impersonation() {
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const customer = await createAccount();
    const member = await addMember(customer);
    const started = await admin.client.post("/api/admin/impersonate", { customer_id: customer.account.id });
    expectStatus(started, 200);
    return { admin, customer, member, acting: as({ token: started.body.access_token as string }) };
  }

  it("may not invite, reset or deactivate members", async () => {
    const { customer, member, acting } = await impersonation();
    for (const res of [
      await acting.post("/api/customer/users", { email: uniqueEmail("planted"), name: "Planted" }),
      await acting.post(`/api/customer/users/${member.userId}/resend-invite`),
      await acting.patch(`/api/customer/users/${member.userId}`, { is_active: false }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: "impersonation_forbidden" });
    }
    expect(bodyOf(await customer.client.get("/api/customer/users"), 200).items).toHaveLength(2);
    expect((await member.client.get("/api/auth/me")).status).toBe(200);
    expect((await acting.get("/api/customer/users")).status).toBe(200);
  });

  it("ends when the administrator loses the role, is deactivated or signs out everywhere", async () => {
    const demoted = await impersonation();
    expect((await demoted.acting.get("/api/auth/me")).status).toBe(200);
    await env.DB.prepare("UPDATE customers SET role = 'customer' WHERE id = ?").bind(demoted.admin.account.id).run();
    expect((await demoted.acting.get("/api/auth/me")).status).toBe(401);

    const deactivated = await impersonation();
    await env.DB.prepare("UPDATE users SET is_active = 0 WHERE email = ?").bind(deactivated.admin.email).run();
    expect((await deactivated.acting.get("/api/customer/users")).status).toBe(401);

    const signedOut = await impersonation();
    nextSecond();
    expect((await signedOut.admin.client.post("/api/auth/logout-all")).status).toBe(204);
    expect((await signedOut.acting.get("/api/auth/me")).status).toBe(401);
    // The customer's own session is not the administrator's to end.
    expect((await signedOut.customer.client.get("/api/auth/me")).status).toBe(200);
  });
});

describe("sign-in timing (issue 20, finding 14)", () => {
  it("checks an unknown e-mail at the configured PBKDF2 cost, as a real hash is checked", async () => {
    const base = testServices();
    const s = testServices({ config: { ...base.config, PASSWORD_PBKDF2_ITERATIONS: 20_000 } });
    const costs: number[] = [];
    const deriveBits = crypto.subtle.deriveBits.bind(crypto.subtle);
    const spy = vi.spyOn(crypto.subtle, "deriveBits").mockImplementation((algorithm, key, length) => {
      costs.push((algorithm as { iterations: number }).iterations);
      return deriveBits(algorithm, key, length);
    });
    try {
      await expect(checkPassword(s, { email: uniqueEmail("ghost"), password: newPassword() }, "192.0.2.1")).rejects.toThrow();
    } finally {
      spy.mockRestore();
    }
    expect(costs).toEqual([20_000]);
  });
});

describe("request body limit (issue 20, finding 10)", () => {
  const big = (bytes: number) => "x".repeat(bytes);

  it("answers 413 to a body over 64 KiB on sign-in, signup and the legacy form, before parsing it", async () => {
    const login = await request("POST", "/api/auth/login", {
      rawBody: JSON.stringify({ email: "a@b.test", password: big(70_000) }),
    });
    expectStatus(login, 413);
    expect(login.body).toEqual({ detail: "The request body is larger than 65536 bytes" });
    const email = uniqueEmail("huge");
    const signup = await request("POST", "/api/auth/signup", {
      body: { email, password: newPassword(), attribution: { utm_source: big(70_000) } },
    });
    expectStatus(signup, 413);
    const legacy = await request("POST", "/exchange/v1/balance.php", {
      rawBody: `api_login=x&webapi=1&pad=${big(70_000)}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expectStatus(legacy, 413);
    expect(legacy.body).toEqual({ status: "error", message: "The request body is larger than 65536 bytes" });
  });

  it("holds for a chunked body without Content-Length too", async () => {
    const { exports } = await import("cloudflare:workers");
    const chunk = new TextEncoder().encode(big(16_384));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await exports.default.fetch(
      new Request("https://api.test/api/auth/login", { method: "POST", body, headers: { "content-type": "application/json" } }),
    );
    expect(res.status).toBe(413);
  });

  it("bounds the signup's free-form attribution (422, nothing stored)", async () => {
    const email = uniqueEmail("attr");
    const res = await request("POST", "/api/auth/signup", {
      body: { email, password: newPassword(), attribution: { utm_source: big(3000) } },
    });
    expectStatus(res, 422);
    expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "attribution"]);
    expect(await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first()).toBeNull();
    expect(
      (await request("POST", "/api/auth/signup", { body: { email, password: newPassword(), attribution: { utm_source: "ad" } } })).status,
    ).toBe(201);
  });
});

describe("node and operator tokens (issue 20, finding 7)", () => {
  const secret = () => `${crypto.randomUUID()}${crypto.randomUUID()}`;
  const snapshot = (bindings: Record<string, unknown>, token: string, nodeId?: string, host = "api.test") =>
    newApp().request(
      `https://${host}/internal/whitelist?since=-1`,
      { headers: { Authorization: `Bearer ${token}`, ...(nodeId ? { "X-Node-Id": nodeId } : {}) } },
      bindings,
    );
  const adminPost = (bindings: Record<string, unknown>, token: string) =>
    newApp().request(
      "https://exchange.test/exchange/admin/accounts",
      { method: "POST", headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" }, body: '{"role":"buyer"}' },
      bindings,
    );

  it("refuses a node token on the exchange administration, and closes it without its own token", async () => {
    const withNodeToken = await adminPost(env, env.NODE_TOKEN);
    expect(withNodeToken.status).toBe(401);
    expect((await adminPost(env, env.EXCHANGE_ADMIN_TOKEN as string)).status).toBe(201);
    const closed = await adminPost({ ...env, EXCHANGE_ADMIN_TOKEN: undefined }, env.NODE_TOKEN);
    expect(closed.status).toBe(503);
  });

  it("refuses a configuration whose administration token is a node's", () => {
    expect(() => loadConfig({ ...env, EXCHANGE_ADMIN_TOKEN: env.NODE_TOKEN })).toThrow(/EXCHANGE_ADMIN_TOKEN must differ/);
    const shared = secret();
    expect(() => loadConfig({ ...env, NODE_TOKENS: `edge-1:${shared}`, EXCHANGE_ADMIN_TOKEN: shared })).toThrow(/must differ/);
    expect(() => loadConfig({ ...env, NODE_TOKENS: "edge-1:short" })).toThrow(/NODE_TOKENS/);
  });

  it("gives each node its own token, revocable alone; NODE_TOKEN serves only unlisted nodes", async () => {
    const [a, b] = [secret(), secret()];
    const both = { ...env, NODE_TOKENS: `edge-a:${a}, edge-b:${b}` };
    expect((await snapshot(both, a, "edge-a")).status).toBe(200);
    expect((await snapshot(both, b, "edge-b")).status).toBe(200);
    expect((await snapshot(both, b, "edge-a")).status).toBe(401);
    expect((await snapshot(both, env.NODE_TOKEN, "edge-a")).status).toBe(401);
    expect((await snapshot(both, env.NODE_TOKEN, "dev-1")).status).toBe(200);
    // edge-b's pair removed: its token is dead, edge-a's still works.
    const revoked = { ...env, NODE_TOKENS: `edge-a:${a}` };
    expect((await snapshot(revoked, b, "edge-b")).status).toBe(401);
    expect((await snapshot(revoked, a, "edge-a")).status).toBe(200);
    // No NODE_TOKEN in production: an unlisted node has nothing to present.
    const listedOnly = { ...env, NODE_TOKEN: undefined, NODE_TOKENS: `edge-a:${a}` };
    expect((await snapshot(listedOnly, a, "edge-a")).status).toBe(200);
    expect((await snapshot(listedOnly, env.NODE_TOKEN, "dev-1")).status).toBe(401);
  });

  it("lets a node with its own token speak only for itself (node_id in the body)", async () => {
    const a = secret();
    const bindings = { ...env, NODE_TOKENS: `edge-a:${a}` };
    const admit = (nodeId: string) =>
      newApp().request(
        "https://api.test/internal/calls/admit",
        {
          method: "POST",
          headers: { Authorization: `Bearer ${a}`, "X-Node-Id": "edge-a", "content-type": "application/json" },
          body: JSON.stringify({ node_id: nodeId }),
        },
        bindings,
      );
    const impersonating = await admit("edge-b");
    expect(impersonating.status).toBe(403);
    expect(await impersonating.json()).toEqual({ detail: "node_id is not the node this token belongs to" });
    // Its own id gets as far as the body's validation.
    expect((await admit("edge-a")).status).toBe(422);
  });

  it("serves /internal only on INTERNAL_HOSTNAME when it is set", async () => {
    const bindings = { ...env, INTERNAL_HOSTNAME: "nodes.internal.test" };
    expect((await snapshot(bindings, env.NODE_TOKEN, "dev-1", "api.test")).status).toBe(404);
    expect((await snapshot(bindings, env.NODE_TOKEN, "dev-1", "nodes.internal.test")).status).toBe(200);
  });
});
