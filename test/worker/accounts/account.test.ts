// Profile, Terms acceptance, suspension, the signup switch, administrators and impersonation.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newApp } from "../../../worker/app.ts";
import { as, bodyOf, expectStatus, request } from "../fixtures/client.ts";
import { addMember, createAccount, makePlatformAdmin, newPassword, signInBrowser, uniqueEmail } from "../fixtures/factory.ts";

describe("GET/PUT /api/customer/profile", () => {
  it("patches some answers, keeps the others, stamps completion and audits who acted", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const empty = await owner.client.get("/api/customer/profile");
    expect(empty.body).toMatchObject({ switch_vendor: null, profile_completed_at: null });
    await owner.client.put("/api/customer/profile", { switch_vendor: "Ribbon", expected_volume: "2M min/month" });
    const res = await member.client.put("/api/customer/profile", { contact_role: "NOC lead", switch_vendor: null });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ switch_vendor: null, expected_volume: "2M min/month", contact_role: "NOC lead" });
    expect(res.body?.profile_completed_at).toBeTypeOf("string");
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).profile).toMatchObject({ contact_role: "NOC lead" });
    const audit = await env.DB.prepare("SELECT actor_label, action FROM audit_log WHERE customer_id = ? ORDER BY created_at")
      .bind(owner.account.id)
      .all();
    expect(audit.results).toEqual([
      { actor_label: owner.email, action: "profile.updated" },
      { actor_label: member.email, action: "profile.updated" },
    ]);
  });

  it("with skipped: true only stamps profile_completed_at", async () => {
    const owner = await createAccount();
    const res = await owner.client.put("/api/customer/profile", { skipped: true });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ switch_vendor: null, region: null });
    expect(res.body?.profile_completed_at).toBeTypeOf("string");
  });
});

describe("POST /api/customer/terms/accept", () => {
  it("records the Terms in force for an owner who signed up without accepting", async () => {
    const owner = await createAccount({ accept_terms: false });
    expect(owner.account.terms_version).toBeNull();
    const res = await owner.client.post("/api/customer/terms/accept");
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ terms_version: "2026-01", terms_current_version: "2026-01" });
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).terms_version).toBe("2026-01");
  });

  it("is for the owner in person: not a member, an API key or an impersonating administrator", async () => {
    const owner = await createAccount({ accept_terms: false });
    const member = await addMember(owner);
    expect((await member.client.post("/api/customer/terms/accept")).body).toEqual({ detail: "owner_required" });
    const key = bodyOf(await owner.client.post("/api/auth/api-keys", { name: "k" }), 201).key;
    expect((await as({ apiKey: key }).post("/api/customer/terms/accept")).body).toEqual({ detail: "portal_session_required" });
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const imp = await admin.client.post("/api/admin/impersonate", { customer_id: owner.account.id });
    expectStatus(imp, 200);
    expect((await as({ token: imp.body.access_token }).post("/api/customer/terms/accept")).status).toBe(403);
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).terms_version).toBeNull();
  });
});

describe("account status and the signup switch", () => {
  it("answers 403 Account suspended to sign-in and to existing credentials", async () => {
    const owner = await createAccount();
    await env.DB.prepare("UPDATE customers SET status = 'suspended' WHERE id = ?").bind(owner.account.id).run();
    const login = await request("POST", "/api/auth/login", { body: { email: owner.email, password: owner.password } });
    expectStatus(login, 403);
    expect(login.body).toEqual({ detail: "Account suspended" });
    expect((await owner.client.get("/api/auth/me")).body).toEqual({ detail: "Account suspended" });
  });

  it("answers 403 Signup is disabled when signup is switched off, and creates nothing", async () => {
    const app = newApp();
    const email = uniqueEmail("closed");
    const res = await app.request(
      "/api/auth/signup",
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: newPassword() }) },
      { ...env, SIGNUP_ENABLED: "false" },
    );
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: "Signup is disabled" });
    const config = await app.request("/api/auth/config", {}, { ...env, SIGNUP_ENABLED: "false" });
    expect(((await config.json()) as { signup_enabled: boolean }).signup_enabled).toBe(false);
    const row = await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first();
    expect(row).toBeNull();
  });
});

describe("platform administrators", () => {
  it("report role admin; a member of an administrator account does not", async () => {
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    expect(bodyOf(await admin.client.get("/api/auth/me"), 200).role).toBe("admin");
    const member = await addMember(admin);
    expect(bodyOf(await member.client.get("/api/auth/me"), 200).role).toBe("member");
    expect((await member.client.post("/api/admin/impersonate", { customer_id: admin.account.id })).body).toEqual({
      detail: "admin_required",
    });
  });

  it("impersonate: the session acts as the owner, reports impersonated_by, gets no refresh cookie", async () => {
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const customer = await createAccount();
    const res = await request("POST", "/api/admin/impersonate", {
      token: admin.token,
      body: { customer_id: customer.account.id, reason: "Ticket 7" },
      headers: { "X-Client": "web" },
    });
    expectStatus(res, 200);
    expect(res.headers.get("set-cookie")).toBeNull();
    const acting = as({ token: res.body.access_token });
    const me = await acting.get("/api/auth/me");
    expect(me.body).toMatchObject({ id: customer.account.id, role: "owner", impersonated_by: admin.email });
    expect(bodyOf(await customer.client.get("/api/auth/me"), 200).impersonated_by).toBeNull();
    for (const [path, body] of [
      ["/api/auth/change-password", { current_password: customer.password, new_password: newPassword() }],
      ["/api/auth/logout-all", undefined],
      ["/api/auth/api-keys", { name: "x" }],
      ["/api/auth/passkeys/register/begin", undefined],
    ] as const) {
      const refused = await acting.post(path, body);
      expectStatus(refused, 403, path);
      expect(refused.body).toEqual({ detail: "impersonation_forbidden" });
    }
    expect((await customer.client.get("/api/auth/me")).status).toBe(200);
  });

  it("impersonating an administrator account reports a non-administrator role", async () => {
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const otherAdmin = await createAccount();
    await makePlatformAdmin(otherAdmin);
    const res = await admin.client.post("/api/admin/impersonate", { customer_id: otherAdmin.account.id });
    expectStatus(res, 200);
    const me = await as({ token: res.body.access_token }).get("/api/auth/me");
    expect(bodyOf(me, 200).role).toBe("owner");
    expect((await as({ token: res.body.access_token }).post("/api/admin/impersonate", { customer_id: admin.account.id })).status).toBe(403);
  });

  it("is refused to customers and answers 404 for an unknown account", async () => {
    const customer = await createAccount();
    const other = await createAccount();
    expect((await customer.client.post("/api/admin/impersonate", { customer_id: other.account.id })).status).toBe(403);
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const browser = await signInBrowser(admin.email, admin.password);
    expect((await as({ token: browser.token }).post("/api/admin/impersonate", { customer_id: crypto.randomUUID() })).status).toBe(404);
  });
});
