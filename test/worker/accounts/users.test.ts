// Spec "Users of the account": invitations, temporary passwords, deactivation, resend.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { as, bodyOf, expectStatus, firstOf, request } from "../fixtures/client.ts";
import {
  addMember,
  createAccount,
  latestMailTo,
  newPassword,
  signedIn,
  signIn,
  temporaryPasswordFor,
  uniqueEmail,
} from "../fixtures/factory.ts";

describe("GET /api/customer/users", () => {
  it("lists the owner first, with max_users 10, to members too", async () => {
    const owner = await createAccount();
    const member = await addMember(owner, "Grace");
    const list = await member.client.get("/api/customer/users");
    expectStatus(list, 200);
    expect(list.body.max_users).toBe(10);
    expect(list.body.items.map((u) => [u.email, u.role, u.is_active])).toEqual([
      [owner.email, "owner", true],
      [member.email, "member", true],
    ]);
    expect(list.body.items[1]).toMatchObject({ name: "Grace", must_change_password: false });
    expect(list.body.items[1]?.last_login_at).toEqual(expect.any(String));
  });
});

describe("POST /api/customer/users", () => {
  it("invites a member with a temporary password by e-mail, to be changed at first sign-in", async () => {
    const owner = await createAccount();
    const email = uniqueEmail("invitee");
    const res = await owner.client.post("/api/customer/users", { email: email.toUpperCase(), name: "Ada" });
    expectStatus(res, 201);
    expect(res.body.user).toMatchObject({
      email,
      name: "Ada",
      role: "member",
      is_active: true,
      must_change_password: true,
      last_login_at: null,
    });
    expect(res.body.welcome_email).toEqual({ sent: false, error: null, skipped_reason: "mail_not_configured" });
    expect(JSON.stringify(res.body)).not.toMatch(/password"?\s*:\s*"[^"]/);

    const temporary = temporaryPasswordFor(await latestMailTo(email));
    const token = await signIn(email, temporary);
    const member = as({ token });
    const me = await member.get("/api/auth/me");
    expectStatus(me, 200);
    expect(me.body).toMatchObject({ role: "member", must_change_password: true });
    // The account's e-mail is its owner's; the member reads their own as the signed-in user.
    expect(me.body.user).toMatchObject({ email, name: "Ada" });
    expect(me.body.email).not.toBe(email);
    // Until the password is changed, nothing else answers.
    const blocked = await member.get("/api/customer/users");
    expectStatus(blocked, 403);
    expect(blocked.body).toEqual({ detail: "password_change_required" });
    const password = newPassword();
    expect((await member.post("/api/auth/change-password", { current_password: temporary, new_password: password })).status).toBe(204);
    const fresh = as({ token: await signIn(email, password) });
    expect(bodyOf(await fresh.get("/api/auth/me"), 200).must_change_password).toBe(false);
    expect((await fresh.get("/api/customer/users")).status).toBe(200);
  });

  it("answers 409 for an e-mail already registered anywhere", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const res = await owner.client.post("/api/customer/users", { email: other.email });
    expectStatus(res, 409);
    expect(res.body).toEqual({ detail: "Email already registered" });
  });

  it("stops at max_users (10, the owner included)", async () => {
    const owner = await createAccount();
    for (let i = 0; i < 9; i++) expect((await owner.client.post("/api/customer/users", { email: uniqueEmail("crew") })).status).toBe(201);
    const res = await owner.client.post("/api/customer/users", { email: uniqueEmail("crew") });
    expectStatus(res, 409);
    expect(res.body).toEqual({ detail: "Maximum number of users reached" });
    expect(bodyOf(await owner.client.get("/api/customer/users"), 200).items).toHaveLength(10);
  });

  it("answers a full account 'maximum reached' whatever the e-mail: it cannot probe who is registered", async () => {
    const owner = await createAccount();
    const registered = await createAccount();
    for (let i = 0; i < 9; i++) expect((await owner.client.post("/api/customer/users", { email: uniqueEmail("crew") })).status).toBe(201);
    for (const email of [registered.email, uniqueEmail("nobody")]) {
      const res = await owner.client.post("/api/customer/users", { email });
      expectStatus(res, 409);
      expect(res.body).toEqual({ detail: "Maximum number of users reached" });
    }
  });

  it("is owner-only", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const res = await member.client.post("/api/customer/users", { email: uniqueEmail() });
    expectStatus(res, 403);
    expect(res.body).toEqual({ detail: "owner_required" });
  });
});

describe("PATCH /api/customer/users/{user_id}", () => {
  it("deactivates a member: sign-in, tokens and browser sessions stop; reactivation restores sign-in", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const off = await owner.client.patch(`/api/customer/users/${member.userId}`, { is_active: false, name: "Gone" });
    expectStatus(off, 200);
    expect(off.body).toMatchObject({ is_active: false, name: "Gone" });
    expect((await member.client.get("/api/auth/me")).status).toBe(401);
    const login = await request("POST", "/api/auth/login", { body: { email: member.email, password: member.password } });
    expectStatus(login, 401);
    await owner.client.patch(`/api/customer/users/${member.userId}`, { is_active: true });
    expect(await signIn(member.email, member.password)).toBeTypeOf("string");
  });

  it("never deactivates the owner (400 cannot_deactivate_owner)", async () => {
    const owner = await createAccount();
    const me = firstOf(bodyOf(await owner.client.get("/api/customer/users"), 200).items);
    const res = await owner.client.patch(`/api/customer/users/${me.id}`, { is_active: false });
    expectStatus(res, 400);
    expect(res.body).toEqual({ detail: "cannot_deactivate_owner" });
    expect((await owner.client.get("/api/auth/me")).status).toBe(200);
  });

  it("answers 404 for a user of another account", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const member = await addMember(b);
    const res = await a.client.patch(`/api/customer/users/${member.userId}`, { is_active: false });
    expectStatus(res, 404);
    expect(res.body).toEqual({ detail: "User not found" });
    expect((await member.client.get("/api/auth/me")).status).toBe(200);
  });
});

describe("POST /api/customer/users/{user_id}/resend-invite", () => {
  it("sends a new temporary password; the old one stops working", async () => {
    const owner = await createAccount();
    const email = uniqueEmail("late");
    const { user } = bodyOf(await owner.client.post("/api/customer/users", { email }), 201);
    const first = temporaryPasswordFor(await latestMailTo(email));
    const res = await owner.client.post(`/api/customer/users/${user.id}/resend-invite`);
    expectStatus(res, 200);
    expect(res.body.user).toMatchObject({ id: user.id, must_change_password: true });
    const second = temporaryPasswordFor(await latestMailTo(email));
    expect(second).not.toBe(first);
    expect((await request("POST", "/api/auth/login", { body: { email, password: first } })).status).toBe(401);
    expect(await signIn(email, second)).toBeTypeOf("string");
  });

  it("refuses the owner (400 cannot_reset_owner) and unknown users (404)", async () => {
    const owner = await createAccount();
    const me = firstOf(bodyOf(await owner.client.get("/api/customer/users"), 200).items);
    expect((await owner.client.post(`/api/customer/users/${me.id}/resend-invite`)).body).toEqual({ detail: "cannot_reset_owner" });
    expect((await owner.client.post(`/api/customer/users/${crypto.randomUUID()}/resend-invite`)).status).toBe(404);
  });
});

describe("temporary passwords are one-time codes (issue 20, finding 17)", () => {
  const login = (email: string, password: string) => request("POST", "/api/auth/login", { body: { email, password } });

  it("signs in once: the mail left in the outbox is worthless after that first sign-in", async () => {
    const owner = await createAccount();
    const email = uniqueEmail("once");
    await owner.client.post("/api/customer/users", { email });
    const mail = await latestMailTo(email);
    expect(mail).toMatch(/one sign-in within 72 hours/);
    const temporary = temporaryPasswordFor(mail);
    const first = await login(email, temporary);
    expectStatus(first, 200);
    // Whoever reads the stored mail later cannot use it.
    expect((await login(email, temporary)).status).toBe(401);
    // The session it opened still chooses the password with it.
    const password = newPassword();
    const changed = await as({ token: signedIn(first).access_token }).post("/api/auth/change-password", {
      current_password: temporary,
      new_password: password,
    });
    expectStatus(changed, 204);
    expect((await login(email, password)).status).toBe(200);
    expect((await login(email, password)).status).toBe(200);
  });

  it("lets exactly one of several sign-ins at once spend it", async () => {
    const owner = await createAccount();
    const email = uniqueEmail("race");
    await owner.client.post("/api/customer/users", { email });
    const temporary = temporaryPasswordFor(await latestMailTo(email));
    const replies = await Promise.all(Array.from({ length: 4 }, () => login(email, temporary)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 401, 401, 401]);
  });

  it("expires after 72 hours unused; a resend gives a fresh one", async () => {
    const owner = await createAccount();
    const email = uniqueEmail("stale");
    const { user } = bodyOf(await owner.client.post("/api/customer/users", { email }), 201);
    const temporary = temporaryPasswordFor(await latestMailTo(email));
    await env.DB.prepare("UPDATE users SET temporary_password_expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), user.id)
      .run();
    expect((await login(email, temporary)).status).toBe(401);
    await owner.client.post(`/api/customer/users/${user.id}/resend-invite`);
    expect((await login(email, temporaryPasswordFor(await latestMailTo(email)))).status).toBe(200);
  });
});
