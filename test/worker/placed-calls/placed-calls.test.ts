// Calls the platform places for an account (test, verification and web-dialer calls): the number
// policy that keeps them off premium-rate ranges unless the operator allows them, the daily caps
// on their count and talk minutes (tighter for a new account), and the signed account header a
// receiving network attributes them by.
import { env } from "cloudflare:test";
import { compactVerify, createLocalJWKSet } from "jose";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus, firstOf, issuesOf, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, makePlatformAdmin, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";
import { uniqueNumber } from "../fixtures/test-call.ts";

const BROWSER = "198.51.100.78";

async function readyAccount(): Promise<Session> {
  const owner = await createAccount();
  await addDestination(owner, { is_default: true, host: "default.sbc.test" });
  return owner;
}

/** An account whose web dialer is on, past its pilot, with a default destination. */
async function dialerAccount(): Promise<Session> {
  const owner = await readyAccount();
  await env.DB.prepare("UPDATE customers SET dialer_enabled = 1, pilot_ends_at = ? WHERE id = ?")
    .bind("2020-01-01T00:00:00.000Z", owner.account.id)
    .run();
  return owner;
}

async function admin(): Promise<Session> {
  const session = await createAccount();
  await makePlatformAdmin(session);
  return session;
}

const policyPath = (customerId: string) => `/api/admin/customers/${customerId}/placed-call-policy` as const;

const testCallRows = async (customerId: string) =>
  (await env.DB.prepare("SELECT * FROM test_calls WHERE customer_id = ?").bind(customerId).all()).results;

async function dialWithToken(owner: Session, dialed: string) {
  const minted = await owner.client.post("/api/customer/dialer/session", {});
  expectStatus(minted, 200);
  return node.admit({ src_ip: BROWSER, dialed, origin: "dialer", customer_id: owner.account.id, dialer_token: minted.body.token });
}

/** The payload of an account header, verified with the published keys. */
async function verifiedAssertion(assertion: string) {
  const keys = await request("GET", "/api/public/call-signing-keys");
  expectStatus(keys, 200);
  const { payload, protectedHeader } = await compactVerify(assertion, createLocalJWKSet(keys.body));
  expect(protectedHeader).toMatchObject({ alg: "EdDSA", typ: "call-shield-account+jws", kid: firstOf(keys.body.keys).kid });
  return JSON.parse(new TextDecoder().decode(payload));
}

describe("the number policy of placed calls", () => {
  it("refuses a test call to a premium-rate number, in any form, with 422 number_not_allowed and nothing stored", async () => {
    const owner = await readyAccount();
    // International forms, and national ones the switch may read in its own country (NANP, UK).
    const premium = ["+19005550123", "0019005550123", "+12129761234", "+449098790123", "+979123456789", "9005550123", "09098790123"];
    for (const number of premium) {
      const res = await owner.client.post("/api/customer/test-calls", { number });
      expectStatus(res, 422, number);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "number"], type: "number_not_allowed" });
    }
    expect(await testCallRows(owner.account.id)).toEqual([]);
    // An ordinary number still rings (route_test needs no verified number).
    expect((await owner.client.post("/api/customer/test-calls", { number: uniqueNumber() })).status).toBe(202);
  });

  it("lets through the ranges the operator allows for one account, and only for it", async () => {
    const owner = await readyAccount();
    const other = await readyAccount();
    const operator = await admin();
    expect((await owner.client.patch(policyPath(owner.account.id), { allow_prefixes: ["+1900555"] })).status).toBe(403);
    const set = await operator.client.patch(policyPath(owner.account.id), { allow_prefixes: ["+1900555"] });
    expectStatus(set, 200);
    expect(set.body).toMatchObject({ customer_id: owner.account.id, allow_prefixes: ["+1900555"], calls_per_day: null });
    expect((await owner.client.post("/api/customer/test-calls", { number: "+19005550123" })).status).toBe(202);
    expect((await owner.client.post("/api/customer/test-calls", { number: "+19005560123" })).status).toBe(422);
    expect((await other.client.post("/api/customer/test-calls", { number: "+19005550123" })).status).toBe(422);
    const bad = await operator.client.patch(policyPath(owner.account.id), { allow_prefixes: ["1900"] });
    expectStatus(bad, 422);
    expect(issuesOf(bad.body)[0]?.loc).toEqual(["body", "allow_prefixes", 0]);
    expect((await operator.client.get(policyPath(crypto.randomUUID()))).status).toBe(404);
  });

  it("refuses a web-dialer call to a premium-rate number before anything is reserved", async () => {
    const owner = await dialerAccount();
    const res = await dialWithToken(owner, "19005550123");
    expect(res.body).toEqual({ decision: "reject", sip_code: 403, reason: "number_not_allowed", call_id: null });
    expect(bodyOf(await owner.client.get("/api/calls"), 200).items).toEqual([]);
  });
});

describe("daily caps of placed calls", () => {
  it("refuses a new account's eleventh test call of the day with 429 and Retry-After, storing nothing", async () => {
    const owner = await readyAccount();
    for (let i = 0; i < 10; i++) {
      const res = await owner.client.post("/api/customer/test-calls", { number: uniqueNumber() });
      expectStatus(res, 202, `call ${i + 1}: ${JSON.stringify(res.body)}`);
    }
    const eleventh = await owner.client.post("/api/customer/test-calls", { number: uniqueNumber() });
    expectStatus(eleventh, 429);
    expect(eleventh.body).toEqual({ detail: "placed_calls_daily_cap" });
    const retryAfter = Number(eleventh.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await testCallRows(owner.account.id)).toHaveLength(10);
  });

  it("gives a paying account the configured caps and the operator's own caps over both", async () => {
    const owner = await readyAccount();
    const operator = await admin();
    expect(bodyOf(await operator.client.get(policyPath(owner.account.id)), 200).effective).toEqual({
      calls_per_day: 10,
      minutes_per_day: 30,
    });
    await env.DB.prepare(
      "INSERT INTO payments (id, customer_id, provider, provider_session_id, kind, amount_micros, status, created_at) VALUES (?, ?, 'stripe', ?, 'topup', 10000000, 'complete', ?)",
    )
      .bind(crypto.randomUUID(), owner.account.id, `cs_${crypto.randomUUID()}`, new Date().toISOString())
      .run();
    expect(bodyOf(await operator.client.get(policyPath(owner.account.id)), 200).effective).toEqual({
      calls_per_day: 200,
      minutes_per_day: 600,
    });
    const set = await operator.client.patch(policyPath(owner.account.id), { calls_per_day: 1 });
    expect(set.body).toMatchObject({ calls_per_day: 1, minutes_per_day: null, effective: { calls_per_day: 1, minutes_per_day: 600 } });
    expect((await owner.client.post("/api/customer/test-calls", { number: uniqueNumber() })).status).toBe(202);
    expect((await owner.client.post("/api/customer/test-calls", { number: uniqueNumber() })).status).toBe(429);
  });

  it("holds a dialer call to the day's minutes left, and refuses calls once they are spent", async () => {
    const owner = await dialerAccount();
    const operator = await admin();
    expect((await operator.client.patch(policyPath(owner.account.id), { minutes_per_day: 1 })).status).toBe(200);
    const first = await dialWithToken(owner, "14155550123");
    expect(first.body).toMatchObject({ decision: "admit", max_call_seconds: 60 });
    const answeredAt = new Date(Date.now() - 60_000).toISOString();
    await node.event(first.body.call_id, { type: "answered", at: answeredAt });
    await node.event(first.body.call_id, {
      type: "ended",
      at: new Date().toISOString(),
      answered_at: answeredAt,
      sip_code: 200,
      hangup_by: "caller",
    });

    const second = await dialWithToken(owner, "14155550124");
    expect(second.body).toMatchObject({ decision: "reject", sip_code: 403, reason: "placed_minutes_daily_cap" });
    const testCall = await owner.client.post("/api/customer/test-calls", { number: uniqueNumber() });
    expectStatus(testCall, 429);
    expect(testCall.body).toEqual({ detail: "placed_minutes_daily_cap" });
  });
});

describe("the signed account header of placed calls", () => {
  it("names the account, the call and the number of a dialer call, signed with the published key", async () => {
    const owner = await dialerAccount();
    const res = await dialWithToken(owner, "14155550123");
    expect(res.body.decision).toBe("admit");
    const claims = await verifiedAssertion(res.body.account_assertion);
    expect(claims).toMatchObject({ customer_id: owner.account.id, call_id: res.body.call_id, origin: "dialer", number: "14155550123" });
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
  });

  it("publishes only the public key, and is absent from carrier calls, which the platform does not place", async () => {
    const keys = await request("GET", "/api/public/call-signing-keys");
    expectStatus(keys, 200);
    expect(keys.body.keys).toHaveLength(1);
    expect(keys.body.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    expect(keys.body.keys[0]).not.toHaveProperty("d");

    const carrier = await readyAccount();
    const { base, cidr } = v4Block();
    await addWhitelistEntry(carrier, cidr);
    const screened = await node.admit({ src_ip: `${base}.10`, dialed: "14155550123" });
    expect(screened.body.decision).toBe("admit");
    expect(screened.body.account_assertion).toBeUndefined();
  });
});
