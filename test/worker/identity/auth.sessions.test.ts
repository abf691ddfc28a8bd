// Spec "Authentication, sessions, keys", rules 4 to 7: refresh families, logout, logout-all,
// change-password.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { as, bodyOf, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { addMember, createAccount, newPassword, nextSecond, refresh, refreshCookie, signIn, signInBrowser } from "../fixtures/factory.ts";

describe("refresh cookie", () => {
  it("is set for a browser on sign-in, HttpOnly, Secure, SameSite=Strict, scoped to /api/auth", async () => {
    const owner = await createAccount();
    const res = await request("POST", "/api/auth/login", {
      body: { email: owner.email, password: owner.password },
      headers: { "X-Client": "web" },
    });
    const header = res.headers.get("set-cookie")!;
    expect(header).toMatch(/^shield_refresh=[A-Za-z0-9_-]{43};/);
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/Secure/);
    expect(header).toMatch(/SameSite=Strict/);
    expect(header).toMatch(/Path=\/api\/auth/);
    const script = await request("POST", "/api/auth/login", { body: { email: owner.email, password: owner.password } });
    expect(script.headers.get("set-cookie")).toBeNull();
  });

  it("is set by a browser signup too", async () => {
    const res = await request("POST", "/api/auth/signup", {
      body: { email: `web-${crypto.randomUUID()}@carrier.test`, password: newPassword() },
      headers: { "X-Client": "web" },
    });
    expectStatus(res, 201);
    const cookie = refreshCookie(res)!;
    expect((await refresh(cookie)).status).toBe(200);
  });

  it("is stored only as a hash", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const value = cookie.split("=")[1]!;
    const stored = await env.DB.prepare("SELECT token_hash FROM refresh_tokens WHERE user_id = (SELECT id FROM users WHERE email = ?)")
      .bind(owner.email)
      .all<{ token_hash: string }>();
    expect(stored.results.length).toBeGreaterThan(0);
    for (const row of stored.results) expect(row.token_hash).not.toContain(value);
  });
});

describe("POST /api/auth/refresh", () => {
  it("rotates the cookie and returns a working access token", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const res = await refresh(cookie);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ token_type: "bearer", expires_in: 900, customer: { email: owner.email } });
    const next = refreshCookie(res)!;
    expect(next).not.toBe(cookie);
    expect((await as({ token: res.body.access_token }).get("/api/auth/me")).status).toBe(200);
    expect((await refresh(next)).status).toBe(200);
  });

  it("needs X-Requested-With: XMLHttpRequest and the cookie", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    expect((await refresh(cookie, false)).status).toBe(401);
    const noCookie = await request("POST", "/api/auth/refresh", { headers: { "X-Requested-With": "XMLHttpRequest" } });
    expectStatus(noCookie, 401);
    expect(noCookie.body).toEqual({ detail: "Not authenticated" });
    // The refused attempt spent nothing: the cookie still works.
    expect((await refresh(cookie)).status).toBe(200);
  });

  it("answers a second tab's concurrent refresh from the family without a new cookie", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const [a, b] = await Promise.all([refresh(cookie), refresh(cookie)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const cookies = [refreshCookie(a), refreshCookie(b)].filter(Boolean);
    expect(cookies).toHaveLength(1);
    expect((await refresh(cookies[0]!)).status).toBe(200);
  });

  it("revokes the whole family when a token rotated over 30 seconds ago is replayed", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const rotated = await refresh(cookie);
    const current = refreshCookie(rotated)!;
    // Age the rotation past the concurrency window.
    await env.DB.prepare(
      "UPDATE refresh_tokens SET rotated_at = ? WHERE rotated_at IS NOT NULL AND user_id = (SELECT id FROM users WHERE email = ?)",
    )
      .bind(new Date(Date.now() - 31_000).toISOString(), owner.email)
      .run();
    expect((await refresh(cookie)).status).toBe(401);
    // The thief's replay cost the legitimate browser its session too: the family is gone.
    expect((await refresh(current)).status).toBe(401);
  });

  it("answers the grace case once: a rotated token sent again and again mints one access token (issue 20, finding 15)", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const rotated = await refresh(cookie);
    expect(rotated.status).toBe(200);
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push((await refresh(cookie)).status);
    expect(replies).toEqual([200, 401, 401, 401, 401]);
    // The browser holding the current token keeps its session.
    expect((await refresh(refreshCookie(rotated)!)).status).toBe(200);
  });

  it("sets the cookie under the spec's name shield_refresh, Secure and HttpOnly (issue 27 item 3)", async () => {
    const owner = await createAccount();
    const res = await request("POST", "/api/auth/login", {
      body: { email: owner.email, password: owner.password },
      headers: { "X-Client": "web" },
    });
    const header = res.headers.get("set-cookie") ?? "";
    expect(header).toMatch(/^shield_refresh=/);
    expect(header).not.toContain("__Secure-");
    expect(header).toMatch(/; Secure/);
    expect(header).toMatch(/; HttpOnly/);
    expect((await refresh(refreshCookie(res)!)).status).toBe(200);
  });

  it("still takes the old name __Secure-shield_refresh for a release, and moves the browser to the spec's name", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const old = `__Secure-${cookie}`;
    const res = await refresh(old);
    expect(res.status).toBe(200);
    const header = res.headers.get("set-cookie") ?? "";
    // The successor under the spec's name, and the old cookie cleared with the same attributes.
    expect(header).toMatch(/^shield_refresh=[A-Za-z0-9_-]{43};/);
    expect(header).toMatch(/__Secure-shield_refresh=;.*Max-Age=0.*Path=\/api\/auth/);
    expect((await refresh(refreshCookie(res)!)).status).toBe(200);
  });

  it("refuses an unknown or tampered cookie, under either name", async () => {
    expect((await refresh(`shield_refresh=${"x".repeat(43)}`)).status).toBe(401);
    expect((await refresh(`__Secure-shield_refresh=${"x".repeat(43)}`)).status).toBe(401);
  });
});

describe("POST /api/auth/logout", () => {
  it("revokes this browser's family and clears the cookie; the access token lives on", async () => {
    const owner = await createAccount();
    const { cookie, token } = await signInBrowser(owner.email, owner.password);
    const other = await signInBrowser(owner.email, owner.password);
    const res = await request("POST", "/api/auth/logout", { headers: { Cookie: cookie, "X-Requested-With": "XMLHttpRequest" } });
    expectStatus(res, 204);
    expect(res.headers.get("set-cookie")).toMatch(/^shield_refresh=;.*Max-Age=0/);
    expect((await refresh(cookie)).status).toBe(401);
    expect((await refresh(other.cookie)).status).toBe(200);
    expect((await as({ token }).get("/api/auth/me")).status).toBe(200);
  });

  it("ends the session behind the old cookie name too, clearing both names (issue 27 item 3)", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const old = `__Secure-${cookie}`;
    const res = await request("POST", "/api/auth/logout", { headers: { Cookie: old, "X-Requested-With": "XMLHttpRequest" } });
    expectStatus(res, 204);
    const header = res.headers.get("set-cookie") ?? "";
    expect(header).toMatch(/^shield_refresh=;.*Max-Age=0/);
    expect(header).toMatch(/__Secure-shield_refresh=;.*Max-Age=0/);
    expect((await refresh(cookie)).status).toBe(401);
    expect((await refresh(old)).status).toBe(401);
  });

  it("refuses without X-Requested-With, so a cross-site form cannot sign anyone out", async () => {
    const owner = await createAccount();
    const { cookie } = await signInBrowser(owner.email, owner.password);
    const res = await request("POST", "/api/auth/logout", { headers: { Cookie: cookie } });
    expectStatus(res, 401);
    expect((await refresh(cookie)).status).toBe(200);
  });
});

describe("POST /api/auth/logout-all", () => {
  it("for the owner: every user's access tokens and refresh tokens end; API keys keep working", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const ownerBrowser = await signInBrowser(owner.email, owner.password);
    const memberBrowser = await signInBrowser(member.email, member.password);
    const key = bodyOf(await owner.client.post("/api/auth/api-keys", { name: "ci" }), 201).key;
    nextSecond();
    expect((await owner.client.post("/api/auth/logout-all")).status).toBe(204);
    for (const token of [owner.token, member.token, ownerBrowser.token, memberBrowser.token]) {
      expect((await as({ token }).get("/api/auth/me")).status).toBe(401);
    }
    expect((await refresh(ownerBrowser.cookie)).status).toBe(401);
    expect((await refresh(memberBrowser.cookie)).status).toBe(401);
    expect((await as({ apiKey: key }).get("/api/auth/me")).status).toBe(200);
    // A sign-in after the revocation works.
    expect((await as({ token: await signIn(owner.email, owner.password) }).get("/api/auth/me")).status).toBe(200);
  });

  it("for a member: only that member is signed out", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const memberBrowser = await signInBrowser(member.email, member.password);
    nextSecond();
    expect((await member.client.post("/api/auth/logout-all")).status).toBe(204);
    expect((await member.client.get("/api/auth/me")).status).toBe(401);
    expect((await refresh(memberBrowser.cookie)).status).toBe(401);
    expect((await owner.client.get("/api/auth/me")).status).toBe(200);
  });
});

describe("POST /api/auth/change-password", () => {
  it("changes the password, ends other sessions and lets this browser renew", async () => {
    const owner = await createAccount();
    const here = await signInBrowser(owner.email, owner.password);
    const elsewhere = await signInBrowser(owner.email, owner.password);
    nextSecond();
    const password = newPassword();
    const res = await request("POST", "/api/auth/change-password", {
      token: here.token,
      headers: { Cookie: here.cookie },
      body: { current_password: owner.password, new_password: password },
    });
    expectStatus(res, 204);
    expect((await as({ token: elsewhere.token }).get("/api/auth/me")).status).toBe(401);
    expect((await refresh(elsewhere.cookie)).status).toBe(401);
    const renewed = await refresh(here.cookie);
    expectStatus(renewed, 200);
    expect((await as({ token: renewed.body.access_token }).get("/api/auth/me")).status).toBe(200);
    const old = await request("POST", "/api/auth/login", { body: { email: owner.email, password: owner.password } });
    expectStatus(old, 401);
    expect(await signIn(owner.email, password)).toBeTypeOf("string");
  });

  it("answers 400 invalid_current_password and changes nothing", async () => {
    const owner = await createAccount();
    const res = await owner.client.post("/api/auth/change-password", { current_password: newPassword(), new_password: newPassword() });
    expectStatus(res, 400);
    expect(res.body).toEqual({ detail: "invalid_current_password" });
    expect(await signIn(owner.email, owner.password)).toBeTypeOf("string");
  });

  it("answers 422 naming new_password when it equals the current one or breaks the policy", async () => {
    const owner = await createAccount();
    const same = await owner.client.post("/api/auth/change-password", { current_password: owner.password, new_password: owner.password });
    expectStatus(same, 422);
    expect(same.body.detail).toEqual([
      { loc: ["body", "new_password"], msg: "new_password must differ from the current password", type: "value_error" },
    ]);
    const short = await owner.client.post("/api/auth/change-password", { current_password: owner.password, new_password: "short" });
    expectStatus(short, 422);
    expect(issuesOf(short.body)[0]?.loc).toEqual(["body", "new_password"]);
  });
});
