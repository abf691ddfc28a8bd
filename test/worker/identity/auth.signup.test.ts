import { describe, expect, it } from "vitest";
import { as, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { createAccount, newPassword, signedIn, signIn, uniqueEmail } from "../fixtures/factory.ts";

describe("POST /api/auth/signup", () => {
  it("opens an account on pay-as-you-go with US$5 of credit and a pilot", async () => {
    const { account, token } = await createAccount({ company: "Acme Voice" });
    expect(account).toMatchObject({
      company: "Acme Voice",
      role: "owner",
      status: "active",
      balance: 5,
      plan_code: "payg",
      ports: 2,
      cycle_minutes_used: 0,
      twofa_enabled: false,
      ai_mode: "power",
      data_region: "ca",
      media_region: "ca",
      must_change_password: false,
      terms_version: "2026-01",
      terms_current_version: "2026-01",
      impersonated_by: null,
    });
    expect(account.pilot).toMatchObject({ active: true, days_left: 14, minutes_limit: 300, minutes_used: 0, exhausted: false });
    const ledger = await as({ token }).get("/api/customer/ledger");
    expectStatus(ledger, 200);
    expect(ledger.body.items).toEqual([
      expect.objectContaining({ type: "credit", amount: 5, balance_after: 5, description: "Welcome credit", waived_amount: 0 }),
    ]);
  });

  it("refuses a second account for the same e-mail, whatever its case", async () => {
    const first = await createAccount();
    const res = await request("POST", "/api/auth/signup", {
      body: { email: first.email.toUpperCase(), password: newPassword() },
    });
    expectStatus(res, 409);
    expect(res.body).toEqual({ detail: "Email already registered" });
  });

  it("lets exactly one of two simultaneous signups for one e-mail through", async () => {
    const email = uniqueEmail("race");
    const replies = await Promise.all(
      [0, 1, 2, 3].map(() => request("POST", "/api/auth/signup", { body: { email, password: newPassword() } })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it("enforces 12 characters and 72 bytes, counting multibyte characters as bytes", async () => {
    const tooShort = await request("POST", "/api/auth/signup", { body: { email: uniqueEmail(), password: "short-pass1" } });
    expectStatus(tooShort, 422);
    expect(tooShort.body.detail[0]).toMatchObject({ loc: ["body", "password"], msg: "Password must be at least 12 characters" });

    // 25 three-byte characters: 25 characters but 75 bytes.
    const tooLong = await request("POST", "/api/auth/signup", { body: { email: uniqueEmail(), password: "€".repeat(25) } });
    expectStatus(tooLong, 422);
    expect(tooLong.body.detail[0]).toMatchObject({ loc: ["body", "password"], msg: "Password must be at most 72 bytes" });

    // 24 three-byte characters: exactly 72 bytes, accepted.
    await createAccount({ password: "€".repeat(24) });
  });

  it("accepts no account when the e-mail is not an address", async () => {
    const res = await request("POST", "/api/auth/signup", { body: { email: "not-an-email", password: newPassword() } });
    expectStatus(res, 422);
    expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "email"]);
  });
});

describe("POST /api/auth/login and GET /api/auth/me", () => {
  it("signs in with the password and returns a bearer token for /auth/me", async () => {
    const owner = await createAccount();
    const login = await request("POST", "/api/auth/login", { body: { email: owner.email, password: owner.password } });
    expectStatus(login, 200);
    expect(login.body).toMatchObject({
      token_type: "bearer",
      expires_in: 900,
      customer: { id: owner.account.id, email: owner.email, role: "owner", status: "active" },
    });
    const me = await as({ token: signedIn(login).access_token }).get("/api/auth/me");
    expectStatus(me, 200);
    expect(me.body).toMatchObject({ id: owner.account.id, balance: 5, role: "owner" });
  });

  it("answers an unknown e-mail exactly like a wrong password", async () => {
    const owner = await createAccount();
    const wrong = await request("POST", "/api/auth/login", { body: { email: owner.email, password: newPassword() } });
    const unknown = await request("POST", "/api/auth/login", { body: { email: uniqueEmail(), password: newPassword() } });
    expectStatus(wrong, 401);
    expectStatus(unknown, 401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ detail: "Invalid email or password" });
  });

  it("refuses a tampered or foreign token", async () => {
    const owner = await createAccount();
    const [header, payload] = owner.token.split(".");
    const forged = `${header}.${payload}.${"A".repeat(43)}`;
    expect((await as({ token: forged }).get("/api/auth/me")).status).toBe(401);
    expect((await as({ token: "not-a-jwt" }).get("/api/auth/me")).status).toBe(401);
    expect(await signIn(owner.email, owner.password)).toBeTypeOf("string");
  });
});
