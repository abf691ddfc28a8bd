// Card payments through the embedded (local) checkout: its page's "Pay" sends a Stripe-signed
// event to the webhook's verification; events signed in the test with the stripe library's own
// test-header helper credit a payment once however often and in whatever order they arrive.
import { env } from "cloudflare:test";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { checkout } from "../../../worker/services/billing/payments.ts";
import { bodyOf, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { createAccount, principalOf, testServices, type Session } from "../fixtures/factory.ts";

const SECRET = (env as unknown as { STRIPE_WEBHOOK_SECRET: string }).STRIPE_WEBHOOK_SECRET;
const cryptoProvider = Stripe.createSubtleCryptoProvider();
const LOOPBACK = { "CF-Connecting-IP": "127.0.0.1" };

const balanceOf = async (owner: Session) => bodyOf(await owner.client.get("/api/customer/balance"), 200).balance as number;
const topups = async (owner: Session) =>
  (bodyOf(await owner.client.get("/api/customer/ledger?limit=500"), 200).items as { type: string; amount: number }[]).filter(
    (e) => e.type === "topup",
  );

function completed(sessionId: string, cents: number, eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`) {
  return JSON.stringify({
    id: eventId,
    object: "event",
    type: "checkout.session.completed",
    data: { object: { id: sessionId, object: "checkout.session", payment_status: "paid", amount_total: cents, currency: "usd" } },
  });
}

async function deliver(payload: string, opts: { secret?: string; timestamp?: number; signature?: string } = {}) {
  const signature =
    opts.signature ??
    (await Stripe.webhooks.generateTestHeaderStringAsync({
      payload,
      secret: opts.secret ?? SECRET,
      timestamp: opts.timestamp,
      cryptoProvider,
    }));
  return request("POST", "/api/webhooks/payments", { rawBody: payload, headers: { "Stripe-Signature": signature } });
}

describe("GET /api/customer/payments/config", () => {
  it("shows the local checkout on, the presets and the minimum", async () => {
    const owner = await createAccount();
    expect((await owner.client.get("/api/customer/payments/config")).body).toEqual({
      enabled: true,
      publishable_key: "pk_local",
      currency: "usd",
      preset_amounts: [25, 50, 100, 250],
      min_custom_amount: 10,
    });
  });
});

describe("POST /api/customer/payments/checkout", () => {
  it("refuses less than 10, fractions of a cent, and non-amounts, naming amount", async () => {
    const owner = await createAccount();
    for (const amount of [9.99, "5", 10.001, "ten", -20]) {
      const res = await owner.client.post("/api/customer/payments/checkout", { amount });
      expectStatus(res, 422, String(amount));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "amount"]);
    }
  });

  it("paid on the local checkout page, credits the balance once", async () => {
    const owner = await createAccount();
    const session = await owner.client.post("/api/customer/payments/checkout", { amount: "50" });
    expectStatus(session, 200);
    expect(session.body.session_id).toMatch(/^cs_local_/);
    const path = new URL(session.body.url).pathname;
    expect(path).toBe(`/dev/checkout/${session.body.session_id}`);
    // The page is for this machine only.
    expect((await request("GET", path)).status).toBe(404);
    const shown = await request("GET", path, { headers: LOOPBACK });
    expectStatus(shown, 200);
    expect(shown.body).toContain("US$50.00");
    expect(await balanceOf(owner)).toBe(5);
    for (let i = 0; i < 2; i++) expect((await request("POST", `${path}/pay`, { headers: LOOPBACK })).status).toBe(200);
    expect(await balanceOf(owner)).toBe(55);
    expect((await topups(owner)).map((e) => e.amount)).toEqual([50]);
    expect((await request("GET", path, { headers: LOOPBACK })).body).toContain("Paid: US$50.00");
  });

  it("answers 409 when card payments are off, and 502 when the provider fails", async () => {
    const owner = await createAccount();
    const base = testServices();
    const off = testServices({ config: { ...base.config, PAYMENTS_PROVIDER: "off" } });
    await expect(checkout(off, await principalOf(owner), { amount: 25 })).rejects.toMatchObject({
      detail: "Card payments are not enabled",
    });
    // A Stripe key with no way to reach Stripe (this machine has no network).
    const stripe = testServices({
      config: { ...base.config, PAYMENTS_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_test_unreachable", STRIPE_WEBHOOK_SECRET: SECRET },
    });
    await expect(checkout(stripe, await principalOf(owner), { amount: 25 })).rejects.toMatchObject({ detail: "Payment provider error" });
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM payments WHERE customer_id = ?").bind(owner.account.id).first();
    expect(rows).toEqual({ n: 0 });
  });
});

describe("POST /api/webhooks/payments", () => {
  it("credits once when the same event arrives three times, and once more events of the same session arrive", async () => {
    const owner = await createAccount();
    const { session_id } = bodyOf(await owner.client.post("/api/customer/payments/checkout", { amount: 100 }), 200);
    const payload = completed(session_id, 10_000);
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await deliver(payload));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(replies.map((r) => bodyOf(r, 200).duplicate)).toEqual([false, true, true]);
    // Another event for the same paid session (Stripe may send async_payment_succeeded too), delivered twice at once.
    const other = completed(session_id, 10_000).replace("checkout.session.completed", "checkout.session.async_payment_succeeded");
    await Promise.all([deliver(other), deliver(other)]);
    expect(await balanceOf(owner)).toBe(105);
    expect((await topups(owner)).map((e) => e.amount)).toEqual([100]);
  });

  it("credits in whatever order the events come: an unrelated event first, the completion last", async () => {
    const owner = await createAccount();
    const { session_id } = bodyOf(await owner.client.post("/api/customer/payments/checkout", { amount: 25 }), 200);
    const expired = JSON.stringify({
      id: "evt_x1" + crypto.randomUUID(),
      object: "event",
      type: "charge.succeeded",
      data: { object: { id: "ch_1" } },
    });
    expect((await deliver(expired)).status).toBe(200);
    expect((await deliver(completed(session_id, 2_500))).status).toBe(200);
    expect(await balanceOf(owner)).toBe(30);
  });

  it("answers 400 on a bad, missing or stale signature and credits nothing", async () => {
    const owner = await createAccount();
    const { session_id } = bodyOf(await owner.client.post("/api/customer/payments/checkout", { amount: 25 }), 200);
    const payload = completed(session_id, 2_500);
    const bad = [
      await deliver(payload, { secret: "whsec_not_the_secret_at_all" }),
      await deliver(payload, { signature: "" }),
      await deliver(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      // Signed, then the body changed.
      await deliver(payload, {
        signature: await Stripe.webhooks.generateTestHeaderStringAsync({
          payload: payload.replace("2500", "250000"),
          secret: SECRET,
          cryptoProvider,
        }),
      }),
    ];
    for (const res of bad) {
      expectStatus(res, 400);
      expect(res.body).toEqual({ detail: "Invalid signature" });
    }
    expect(await balanceOf(owner)).toBe(5);
  });
});

describe("POST /api/customer/payments/subscribe", () => {
  it("answers 400 for pay-as-you-go, 404 for an unknown plan, 409 for the plan the account has", async () => {
    const owner = await createAccount();
    expect((await owner.client.post("/api/customer/payments/subscribe", { plan_code: "payg" })).body).toEqual({
      detail: "Pay-as-you-go has no monthly fee",
    });
    expect((await owner.client.post("/api/customer/payments/subscribe", { plan_code: "gold" })).status).toBe(404);
  });

  it("paid, credits the fee and buys the plan with it", async () => {
    const owner = await createAccount();
    const session = await owner.client.post("/api/customer/payments/subscribe", { plan_code: "starter" });
    expectStatus(session, 200);
    expect((await request("POST", `${new URL(session.body.url).pathname}/pay`, { headers: LOOPBACK })).status).toBe(200);
    const me = (await owner.client.get("/api/auth/me")).body;
    expect(me).toMatchObject({ plan_code: "starter", ports: 10, balance: 5 });
    const entries = bodyOf(await owner.client.get("/api/customer/ledger"), 200).items.map((e: { type: string; amount: number }) => [
      e.type,
      e.amount,
    ]);
    expect(entries).toEqual([
      ["plan", -49],
      ["topup", 49],
      ["credit", 5],
    ]);
    expect((await owner.client.post("/api/customer/payments/subscribe", { plan_code: "starter" })).status).toBe(409);
  });
});
