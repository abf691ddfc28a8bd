// POST /customer/plan and the cycle renewal by the Cron Trigger: the fee through the AccountLedger,
// ports and included minutes applied at once, pay-as-you-go again when the balance runs short;
// the ledger sums to the balance at every step.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { JOBS } from "../../../worker/cron/index.ts";
import { syncAdmissionState } from "../../../worker/services/trunk/admission-state.ts";
import { addMonth, renewPlans } from "../../../worker/services/billing/plans.ts";
import { endedCall } from "../fixtures/call.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, latestMailTo, testServices, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";
import { bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const topUp = (owner: Session, usd: number) =>
  testServices()
    .ledger(owner.account.id)
    .credit({ entryId: crypto.randomUUID(), type: "topup", amountMicros: usd * 1_000_000, createdAt: new Date().toISOString() });

const spend = (owner: Session, usd: number) =>
  testServices()
    .ledger(owner.account.id)
    .debit({ entryId: crypto.randomUUID(), type: "adjustment", amountMicros: usd * 1_000_000, createdAt: new Date().toISOString() });

type Entry = { id: string; type: string; amount: number; balance_after: number; description: string | null };

async function ledgerOf(owner: Session): Promise<Entry[]> {
  const res = await owner.client.get("/api/customer/ledger?limit=500");
  expectStatus(res, 200);
  return res.body.items;
}

/** The balance as GET /customer/balance shows it, checked against the sum of every ledger entry. */
async function balanceOf(owner: Session): Promise<number> {
  const balance = bodyOf(await owner.client.get("/api/customer/balance"), 200).balance as number;
  const entries = await ledgerOf(owner);
  expect(entries.reduce((sum, e) => sum + Math.round(e.amount * 1e6), 0) / 1e6).toBeCloseTo(balance, 6);
  return balance;
}

const me = async (owner: Session) => bodyOf(await owner.client.get("/api/auth/me"), 200);

describe("POST /api/customer/plan", () => {
  it("answers 404 for an unknown plan, 409 for the plan the account has, 422 without plan_code", async () => {
    const owner = await createAccount();
    expect((await owner.client.post("/api/customer/plan", { plan_code: "platinum" })).body).toEqual({ detail: "Plan not found" });
    const same = await owner.client.post("/api/customer/plan", { plan_code: "payg" });
    expectStatus(same, 409);
    expect(same.body).toEqual({ detail: "Already subscribed to this plan" });
    const missing = await owner.client.post("/api/customer/plan", {});
    expectStatus(missing, 422);
    expect(issuesOf(missing.body)[0]?.loc).toEqual(["body", "plan_code"]);
  });

  it("answers 402 when the balance does not cover the first month's fee, and charges and changes nothing", async () => {
    const owner = await createAccount();
    const res = await owner.client.post("/api/customer/plan", { plan_code: "starter" });
    expectStatus(res, 402);
    expect(res.body).toEqual({ detail: "Insufficient balance for the first month's fee" });
    expect(await balanceOf(owner)).toBe(5);
    expect(await ledgerOf(owner)).toHaveLength(1);
    expect(await me(owner)).toMatchObject({ plan_code: "payg", ports: 2, plan_renews_at: null });
  });

  it("charges the fee once, applies ports at once to admission, and starts a cycle", async () => {
    const owner = await createAccount();
    const block = v4Block();
    await addWhitelistEntry(owner, block.cidr);
    await addDestination(owner, { is_default: true });
    await topUp(owner, 995); // 1000
    const src = `${block.base}.7`;
    const admit = () => node.admit({ src_ip: src, dialed: "14155550123" });
    const payg = await Promise.all([admit(), admit(), admit()]);
    expect(payg.filter((r) => r.body.decision === "admit")).toHaveLength(2);

    const before = Date.now();
    const res = await owner.client.post("/api/customer/plan", { plan_code: "starter" });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ plan_code: "starter", ports: 10, balance: 951, cycle_minutes_used: 0 });
    expect(Date.parse(res.body.plan_started_at ?? "")).toBeGreaterThanOrEqual(before - 1000);
    expect(res.body.plan_renews_at).toBe(addMonth(res.body.plan_started_at ?? ""));
    const [fee] = await ledgerOf(owner);
    expect(fee).toMatchObject({ type: "plan", amount: -49, balance_after: 951, description: "Starter plan, first month" });
    expect(fee!.id).toMatch(UUID);
    expect(await balanceOf(owner)).toBe(951);
    expect((await owner.client.get("/api/customer/balance")).body).toMatchObject({ plan: "starter", ports: 10, included_minutes: 5000 });

    // The ledger admits on the new plan at once: 8 more calls beside the 2 up, then the 11th is refused.
    const starter = await Promise.all(Array.from({ length: 9 }, admit));
    expect(starter.filter((r) => r.body.decision === "admit")).toHaveLength(8);
    expect(starter.filter((r) => r.body.reason === "no_free_port")).toHaveLength(1);
    expect((await owner.client.post("/api/customer/plan", { plan_code: "starter" })).status).toBe(409);
  });

  it("charges once when the same change is asked twice at once", async () => {
    const owner = await createAccount();
    await topUp(owner, 195);
    const replies = await Promise.all([0, 1, 2].map(() => owner.client.post("/api/customer/plan", { plan_code: "business" })));
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of replies) expect([200, 409]).toContain(r.status);
    expect((await ledgerOf(owner)).filter((e) => e.type === "plan")).toHaveLength(1);
    expect(await balanceOf(owner)).toBe(1);
    expect(await me(owner)).toMatchObject({ plan_code: "business", ports: 30 });
  });

  it("back to pay-as-you-go costs nothing and ends the cycle", async () => {
    const owner = await createAccount();
    await topUp(owner, 45);
    await owner.client.post("/api/customer/plan", { plan_code: "starter" });
    const res = await owner.client.post("/api/customer/plan", { plan_code: "payg" });
    expect(res.body).toMatchObject({ plan_code: "payg", ports: 2, plan_renews_at: null, balance: 1 });
    expect(await balanceOf(owner)).toBe(1);
  });
});

describe("plan renewal (Cron Trigger)", () => {
  it("renews each cycle, then moves the account to pay-as-you-go with a mail when the balance runs short", async () => {
    const owner = await createAccount();
    await topUp(owner, 95); // 100
    const bought = bodyOf(await owner.client.post("/api/customer/plan", { plan_code: "starter" }), 200);
    expect(await balanceOf(owner)).toBe(51);
    const s = testServices();
    // Past the pilot, a call in the cycle uses included minutes (no charge).
    await env.DB.prepare("UPDATE customers SET pilot_ends_at = ? WHERE id = ?").bind("2020-01-01T00:00:00.000Z", owner.account.id).run();
    await syncAdmissionState(s, owner.account.id);
    await endedCall(owner, { seconds: 90 });
    expect((await me(owner)).cycle_minutes_used).toBe(1.5);
    expect(await balanceOf(owner)).toBe(51);
    const mine = (outcomes: { customerId: string }[]) => outcomes.filter((o) => o.customerId === owner.account.id);

    // Not yet due: nothing happens.
    expect(mine(await renewPlans(s, new Date(Date.parse(bought.plan_renews_at ?? "") - 1000)))).toEqual([]);
    expect(await balanceOf(owner)).toBe(51);

    // The clock moved past the renewal: the cron charges the fee and starts the next cycle.
    const firstRenewal = new Date(Date.parse(bought.plan_renews_at ?? "") + 60_000);
    const job = JOBS.find((j) => j.name === "plan renewals")!;
    await job.run(s, env as never, firstRenewal);
    const renewed = await me(owner);
    expect(renewed).toMatchObject({
      plan_code: "starter",
      plan_started_at: bought.plan_renews_at,
      plan_renews_at: addMonth(bought.plan_renews_at ?? ""),
      cycle_minutes_used: 0,
      balance: 2,
    });
    expect(await balanceOf(owner)).toBe(2);
    const fees = (await ledgerOf(owner)).filter((e) => e.type === "plan");
    expect(fees.map((e) => e.description)).toEqual(["Starter plan, renewal", "Starter plan, first month"]);
    expect(new Set(fees.map((e) => e.id)).size).toBe(2);
    // The same tick again (a retried cron) charges nothing more.
    expect(mine(await renewPlans(s, firstRenewal))).toEqual([]);
    expect(await balanceOf(owner)).toBe(2);

    // A month later the balance (2) cannot cover 49: pay-as-you-go, mailed, admission on payg.
    await spend(owner, 1);
    const outcome = mine(await renewPlans(s, new Date(Date.parse(renewed.plan_renews_at ?? "") + 60_000)));
    expect(outcome).toEqual([{ customerId: owner.account.id, outcome: "lapsed" }]);
    expect(await me(owner)).toMatchObject({ plan_code: "payg", ports: 2, plan_renews_at: null, balance: 1 });
    expect(await balanceOf(owner)).toBe(1);
    expect(await latestMailTo(owner.email)).toContain("did not cover the US$49.00 monthly fee of the Starter plan");
    const state = await env.DB.prepare("SELECT plan_code FROM customers WHERE id = ?").bind(owner.account.id).first();
    expect(state).toEqual({ plan_code: "payg" });
    // Nothing further is due.
    expect(mine(await renewPlans(s, new Date(Date.parse(renewed.plan_renews_at ?? "") + 120_000)))).toEqual([]);
  });
});

describe("GET /api/customer/ledger ids", () => {
  it("are UUIDs for every entry, the same on every read", async () => {
    const owner = await createAccount();
    await topUp(owner, 100);
    await owner.client.post("/api/customer/plan", { plan_code: "starter" });
    const first = await ledgerOf(owner);
    expect(first.map((e) => e.type)).toEqual(["plan", "topup", "credit"]);
    for (const entry of first) expect(entry.id).toMatch(UUID);
    expect((await ledgerOf(owner)).map((e) => e.id)).toEqual(first.map((e) => e.id));
  });
});
