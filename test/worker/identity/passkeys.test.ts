// Spec rules 1, 2, 8 and 10: passkeys as the second factor, with real WebAuthn payloads
// from a software authenticator.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newApp } from "../../../worker/app.ts";
import type { Schemas } from "../fixtures/api-reply.ts";
import { as, bodyOf, expectStatus, request } from "../fixtures/client.ts";
import { addMember, createAccount, makePlatformAdmin, refreshCookie, type Session } from "../fixtures/factory.ts";
import { SoftwareAuthenticator } from "../fixtures/software-authenticator.ts";

async function registerPasskey(owner: Session, authenticator: SoftwareAuthenticator, name = "Laptop") {
  const begin = await owner.client.post("/api/auth/passkeys/register/begin");
  expectStatus(begin, 200);
  const credential = await authenticator.register(begin.body.options);
  return owner.client.post("/api/auth/passkeys/register/complete", { credential, state: begin.body.state, name });
}

const passwordStep = (email: string, password: string) => request("POST", "/api/auth/login", { body: { email, password } });

/** The second factor a password sign-in asks for on a two-factor account. */
async function secondFactorStep(email: string, password: string): Promise<Schemas["SecondFactorChallenge"]> {
  const body = bodyOf(await passwordStep(email, password), 200);
  if (!("twofa_required" in body)) throw new Error(`signed in without a second factor: ${JSON.stringify(body)}`);
  return body;
}

/** The login_token of a second-factor step (absent while a member has no passkey to sign in with). */
function loginTokenOf(step: Schemas["SecondFactorChallenge"]): string {
  if (!step.login_token) throw new Error(`no login_token: ${JSON.stringify(step)}`);
  return step.login_token;
}

const twofaEnabled = async (owner: Session) => bodyOf(await owner.client.get("/api/auth/me"), 200).twofa_enabled;

describe("passkey registration", () => {
  it("registers an owner passkey and turns two-factor sign-in on", async () => {
    const owner = await createAccount();
    const authenticator = await SoftwareAuthenticator.create();
    const res = await registerPasskey(owner, authenticator, "YubiKey");
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ name: "YubiKey", transports: ["internal"], last_used_at: null });
    expect(await twofaEnabled(owner)).toBe(true);
    expect(bodyOf(await owner.client.get("/api/auth/passkeys"), 200).map((p) => p.id)).toEqual([res.body.id]);
  });

  it("offers the relying party and excludes credentials already registered", async () => {
    const owner = await createAccount();
    const authenticator = await SoftwareAuthenticator.create();
    await registerPasskey(owner, authenticator);
    const begin = bodyOf(await owner.client.post("/api/auth/passkeys/register/begin"), 200);
    expect(begin.options.rp).toMatchObject({ id: "api.test" });
    expect(begin.options.excludeCredentials).toEqual([expect.objectContaining({ id: authenticator.id })]);
  });

  it("answers 409 passkey_already_registered for the same credential twice", async () => {
    const owner = await createAccount();
    const authenticator = await SoftwareAuthenticator.create();
    expect((await registerPasskey(owner, authenticator)).status).toBe(201);
    const again = await registerPasskey(owner, authenticator);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: "passkey_already_registered" });
  });

  it("refuses a reused or foreign state, and a credential made for another challenge, with 400", async () => {
    const owner = await createAccount();
    const authenticator = await SoftwareAuthenticator.create();
    const begin = await owner.client.post("/api/auth/passkeys/register/begin");
    expectStatus(begin, 200);
    const credential = await authenticator.register(begin.body.options);
    const wrongChallenge = await authenticator.register({ ...begin.body.options, challenge: "AAAA" });
    const bad = await owner.client.post("/api/auth/passkeys/register/complete", { credential: wrongChallenge, state: begin.body.state });
    expectStatus(bad, 400);
    expect(bad.body).toEqual({ detail: "Bad request" });

    const other = await createAccount();
    const otherBegin = await other.client.post("/api/auth/passkeys/register/begin");
    expectStatus(otherBegin, 200);
    const foreign = await owner.client.post("/api/auth/passkeys/register/complete", { credential, state: otherBegin.body.state });
    expectStatus(foreign, 400);
    const spent = await owner.client.post("/api/auth/passkeys/register/complete", { credential, state: begin.body.state });
    expectStatus(spent, 400);
    expect(await twofaEnabled(owner)).toBe(false);
  });
});

describe("two-factor sign-in", () => {
  it("returns a passkey challenge instead of a token, then a session for the assertion", async () => {
    const owner = await createAccount();
    const authenticator = await SoftwareAuthenticator.create();
    await registerPasskey(owner, authenticator);

    const step = await secondFactorStep(owner.email, owner.password);
    expect(step.twofa_required).toBe(true);
    expect(step).not.toHaveProperty("access_token");
    expect(step.passkey_options.allowCredentials).toEqual([expect.objectContaining({ id: authenticator.id })]);

    const assertion = await authenticator.assert(step.passkey_options);
    const res = await request("POST", "/api/auth/login/passkey", {
      body: { login_token: step.login_token, assertion },
      headers: { "X-Client": "web" },
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ token_type: "bearer", customer: { email: owner.email } });
    expect(refreshCookie(res)).not.toBeNull();
    expect((await as({ token: res.body.access_token }).get("/api/auth/me")).status).toBe(200);
    expect(bodyOf(await owner.client.get("/api/auth/passkeys"), 200)[0]?.last_used_at).toEqual(expect.any(String));
  });

  it("refuses a replayed assertion, a spent login_token and a cloned authenticator's stale counter", async () => {
    const owner = await createAccount();
    const authenticator = await SoftwareAuthenticator.create();
    await registerPasskey(owner, authenticator);

    const first = await secondFactorStep(owner.email, owner.password);
    const assertion = await authenticator.assert(first.passkey_options);
    const ok = await request("POST", "/api/auth/login/passkey", { body: { login_token: first.login_token, assertion } });
    expectStatus(ok, 200);

    const replay = await request("POST", "/api/auth/login/passkey", { body: { login_token: first.login_token, assertion } });
    expectStatus(replay, 401);
    expect(replay.body).toEqual({ detail: "invalid_login" });

    const second = await secondFactorStep(owner.email, owner.password);
    const oldAssertionNewToken = await request("POST", "/api/auth/login/passkey", {
      body: { login_token: second.login_token, assertion },
    });
    expectStatus(oldAssertionNewToken, 401);

    // A clone of the authenticator signs the fresh challenge with a counter it already used.
    authenticator.signCount -= 1;
    const cloned = await authenticator.assert(second.passkey_options);
    const clonedRes = await request("POST", "/api/auth/login/passkey", {
      body: { login_token: second.login_token, assertion: cloned },
    });
    expectStatus(clonedRes, 401);
  });

  it("refuses a tampered login_token and an assertion from an unknown authenticator", async () => {
    const owner = await createAccount();
    const authenticator = await SoftwareAuthenticator.create();
    await registerPasskey(owner, authenticator);
    const step = await secondFactorStep(owner.email, owner.password);
    const assertion = await authenticator.assert(step.passkey_options);
    const tampered = `${loginTokenOf(step).slice(0, -4)}AAAA`;
    expect((await request("POST", "/api/auth/login/passkey", { body: { login_token: tampered, assertion } })).status).toBe(401);
    const stranger = await (await SoftwareAuthenticator.create()).assert(step.passkey_options);
    expect(
      (await request("POST", "/api/auth/login/passkey", { body: { login_token: step.login_token, assertion: stranger } })).status,
    ).toBe(401);
    // An access token is not a login_token either.
    expect((await request("POST", "/api/auth/login/passkey", { body: { login_token: owner.token, assertion } })).status).toBe(401);
  });
});

describe("member enrolment on a two-factor account", () => {
  it("gives a member without a passkey an enroll_token, never a password-only session", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    await registerPasskey(owner, await SoftwareAuthenticator.create());

    const step = await secondFactorStep(member.email, member.password);
    expect(step).toMatchObject({ twofa_required: true });
    expect(step).not.toHaveProperty("access_token");
    expect(step.login_token).toBeUndefined();
    const device = await SoftwareAuthenticator.create();
    const credential = await device.register(step.passkey_options);
    const enrolled = await request("POST", "/api/auth/login/passkey/enroll", {
      body: { enroll_token: step.enroll_token, credential, name: "Phone" },
      headers: { "X-Client": "web" },
    });
    expectStatus(enrolled, 200);
    expect(enrolled.body.customer).toMatchObject({ id: owner.account.id, role: "member" });
    expect(refreshCookie(enrolled)).not.toBeNull();

    // From now on the member signs in with that passkey.
    const next = await secondFactorStep(member.email, member.password);
    expect(next.login_token).toBeTypeOf("string");
    const assertion = await device.assert(next.passkey_options);
    expect((await request("POST", "/api/auth/login/passkey", { body: { login_token: next.login_token, assertion } })).status).toBe(200);
  });

  it("answers 409 passkey_already_registered for a credential someone already holds, 401 for a bad token", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const ownerDevice = await SoftwareAuthenticator.create();
    await registerPasskey(owner, ownerDevice);
    const step = await secondFactorStep(member.email, member.password);
    const reused = await ownerDevice.register(step.passkey_options);
    const dup = await request("POST", "/api/auth/login/passkey/enroll", {
      body: { enroll_token: step.enroll_token, credential: reused },
    });
    expectStatus(dup, 409);
    expect(dup.body).toEqual({ detail: "passkey_already_registered" });
    const bad = await request("POST", "/api/auth/login/passkey/enroll", { body: { enroll_token: "nope", credential: reused } });
    expectStatus(bad, 401);
    expect(bad.body).toEqual({ detail: "invalid_login" });
  });
});

describe("managing passkeys", () => {
  it("renames, and deleting the last one turns two-factor off (password-only sign-in again)", async () => {
    const owner = await createAccount();
    const created = bodyOf(await registerPasskey(owner, await SoftwareAuthenticator.create()), 201);
    const renamed = await owner.client.patch(`/api/auth/passkeys/${created.id}`, { name: "Desk key" });
    expectStatus(renamed, 200);
    expect(renamed.body.name).toBe("Desk key");
    expect((await owner.client.delete(`/api/auth/passkeys/${created.id}`)).status).toBe(204);
    expect(await twofaEnabled(owner)).toBe(false);
    expect(bodyOf(await passwordStep(owner.email, owner.password), 200)).toMatchObject({ access_token: expect.any(String) });
    expect((await owner.client.delete(`/api/auth/passkeys/${created.id}`)).body).toEqual({ detail: "Passkey not found" });
  });

  it("keeps two-factor on while another passkey remains", async () => {
    const owner = await createAccount();
    const first = bodyOf(await registerPasskey(owner, await SoftwareAuthenticator.create()), 201);
    await registerPasskey(owner, await SoftwareAuthenticator.create());
    await owner.client.delete(`/api/auth/passkeys/${first.id}`);
    expect(await twofaEnabled(owner)).toBe(true);
  });

  it("removes a member's passkeys idempotently, two-factor staying on; the member enrols again", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    await registerPasskey(owner, await SoftwareAuthenticator.create());
    const step = await secondFactorStep(member.email, member.password);
    const device = await SoftwareAuthenticator.create();
    await request("POST", "/api/auth/login/passkey/enroll", {
      body: { enroll_token: step.enroll_token, credential: await device.register(step.passkey_options) },
    });
    expect((await owner.client.delete(`/api/auth/passkeys/members/${member.userId}`)).status).toBe(204);
    expect((await owner.client.delete(`/api/auth/passkeys/members/${member.userId}`)).status).toBe(204);
    expect(await twofaEnabled(owner)).toBe(true);
    expect((await secondFactorStep(member.email, member.password)).enroll_token).toBeTypeOf("string");
    expect((await owner.client.delete(`/api/auth/passkeys/members/${crypto.randomUUID()}`)).body).toEqual({ detail: "User not found" });
  });

  it("is owner-only and refused inside an impersonation; another account's passkey is 404", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const created = bodyOf(await registerPasskey(owner, await SoftwareAuthenticator.create()), 201);
    for (const res of [
      await member.client.get("/api/auth/passkeys"),
      await member.client.post("/api/auth/passkeys/register/begin"),
      await member.client.delete(`/api/auth/passkeys/${created.id}`),
    ]) {
      expectStatus(res, 403);
      expect(res.body).toEqual({ detail: "owner_required" });
    }
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const imp = await admin.client.post("/api/admin/impersonate", { customer_id: owner.account.id });
    const acting = as({ token: bodyOf(imp, 200).access_token });
    expect((await acting.post("/api/auth/passkeys/register/begin")).body).toEqual({ detail: "impersonation_forbidden" });
    const stranger = await createAccount();
    expect((await stranger.client.patch(`/api/auth/passkeys/${created.id}`, { name: "mine" })).status).toBe(404);
  });
});

describe("the relying party (issue 20, finding 16)", () => {
  const begin = (bindings: Record<string, unknown>, origin: string, token: string) =>
    newApp().request(
      `${origin}/api/auth/passkeys/register/begin`,
      { method: "POST", headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": "192.0.2.16" } },
      bindings,
    );

  it("is the configured one, whatever Host the request came to", async () => {
    const owner = await createAccount();
    const res = await begin(env, "https://attacker.example", owner.token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ options: { rp: { id: "api.test" } } });
  });

  it("is not taken from a public Host when unconfigured (503), only from loopback", async () => {
    const owner = await createAccount();
    const unpinned = { ...env, WEBAUTHN_RP_ID: undefined, WEBAUTHN_ORIGIN: undefined };
    const pub = await begin(unpinned, "https://attacker.example", owner.token);
    expect(pub.status).toBe(503);
    expect(await pub.json()).toEqual({ detail: "passkeys_not_configured" });
    const local = await begin(unpinned, "http://127.0.0.1:8787", owner.token);
    expect(local.status).toBe(200);
    expect(await local.json()).toMatchObject({ options: { rp: { id: "127.0.0.1" } } });
  });
});
