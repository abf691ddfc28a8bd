// GET /customer/dashboard and GET /customer/stats over calls seeded across UTC days (either side of
// UTC midnight and of Toronto's midnight), checked against figures computed here from the seeds.
import { describe, expect, it } from "vitest";
import { endedCall } from "../fixtures/call.ts";
import { giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { createAccount, testServices, type Session } from "../fixtures/factory.ts";
import { untilRecorded } from "../fixtures/node-client.ts";
import { bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";

const DAY = 86_400_000;
const today = () => Date.now() - (Date.now() % DAY);
const iso = (ms: number) => new Date(ms).toISOString();

type Seed = {
  at: number;
  probability: number | null;
  category?: string;
  recommendation?: "block" | "review" | "allow";
  dialed: string | null;
  billsec: number;
  answered: boolean;
};

async function seedCall(owner: Session, seed: Seed) {
  const started = iso(seed.at);
  const call = await insertCall(owner, {
    started_at: started,
    created_at: started,
    dialed: seed.dialed,
    billsec: seed.billsec,
    answered_at: seed.answered ? started : null,
    status: seed.answered ? "completed" : "failed",
  });
  if (seed.probability !== null) {
    await giveVerdict(owner, call, {
      probability: seed.probability,
      category: seed.category ?? "unknown",
      recommendation: seed.recommendation ?? "review",
    });
  }
  return call;
}

const debit = (owner: Session, usd: number, at: number, type = "analysis") =>
  testServices()
    .ledger(owner.account.id)
    .debit({ entryId: crypto.randomUUID(), type, amountMicros: Math.round(usd * 1_000_000), createdAt: iso(at) });

const credit = (owner: Session, usd: number, at: number) =>
  testServices()
    .ledger(owner.account.id)
    .credit({ entryId: crypto.randomUUID(), type: "topup", amountMicros: usd * 1_000_000, createdAt: iso(at) });

/** An account with calls over five UTC days, a call carried through the node, and money posted on several days. */
async function seededAccount() {
  const owner = await createAccount();
  const T = today();
  const H = 3_600_000;
  const seeds: Seed[] = [
    { at: T - 40 * DAY, probability: 95, dialed: "442079460000", billsec: 60, answered: true }, // outside 30 days
    {
      at: T - DAY - 1000,
      probability: 85,
      category: "credit_card_scam",
      recommendation: "block",
      dialed: "442079460000",
      billsec: 120,
      answered: true,
    },
    { at: T - DAY, probability: 20, category: "legitimate", recommendation: "allow", dialed: "+33612345678", billsec: 60, answered: true },
    // 23:59:59 in Toronto of the day before, but the same UTC day as the call above.
    {
      at: T - DAY + 5 * H - 1000,
      probability: 50,
      category: "robocall",
      recommendation: "review",
      dialed: "011 44 20 7946 0000",
      billsec: 90,
      answered: true,
    },
    { at: T - DAY + 5 * H, probability: null, dialed: "15145550100", billsec: 0, answered: false },
    { at: T, probability: 70, category: "robocall", recommendation: "block", dialed: null, billsec: 61, answered: true },
    { at: T + 1, probability: 29, category: "legitimate", recommendation: "allow", dialed: "+88216123456", billsec: 60, answered: true },
  ];
  // Money in posting order, oldest first, as the ledger receives it.
  await debit(owner, 9, T - 40 * DAY);
  await debit(owner, 1.25, T - 2 * DAY + 12 * H);
  await credit(owner, 50, T - DAY + H);
  await debit(owner, 0.75, T - DAY + 23 * H, "plan");
  for (const seed of seeds) await seedCall(owner, seed);
  const { callId } = await endedCall(owner, { seconds: 75 });
  const carried = (await untilRecorded(callId))!;
  seeds.push({
    at: Date.parse(carried.started_at),
    probability: null,
    dialed: carried.dialed,
    billsec: carried.billsec ?? 0,
    answered: true,
  });
  // Another account's high-risk call never shows.
  const other = await createAccount();
  await seedCall(other, { at: T, probability: 99, dialed: "442079460000", billsec: 600, answered: true });
  await debit(other, 3, Date.now());
  return { owner, seeds, T };
}

describe("GET /api/customer/dashboard", () => {
  it("counts the account's own calls, risk, minutes, spend and countries by UTC calendar day", async () => {
    const { owner, seeds, T } = await seededAccount();
    const res = await owner.client.get("/api/customer/dashboard");
    expectStatus(res, 200);
    const d = res.body;
    const from = T - 29 * DAY;
    const inWindow = seeds.filter((s) => s.at >= from);
    const analysed = inWindow.filter((s) => s.probability !== null);
    const high = analysed.filter((s) => s.probability! >= 70);
    const dates = Array.from({ length: 30 }, (_, i) => iso(from + i * DAY).slice(0, 10));
    const ledger = bodyOf(await owner.client.get("/api/customer/ledger?limit=500"), 200).items as { amount: number; created_at: string }[];
    const spent = ledger.filter((e) => e.amount < 0 && Date.parse(e.created_at) >= from);
    const spendOn = (date: string) => -spent.filter((e) => e.created_at.startsWith(date)).reduce((sum, e) => sum + e.amount, 0);

    expect(d).toMatchObject({
      days: 30,
      from: iso(from),
      calls_today: inWindow.filter((s) => s.at >= T).length,
      calls_period: inWindow.length,
    });
    expect(d.calls_period).toBe(7);
    expect(d.calls_today).toBe(3);
    expect(d.minutes_period).toBeCloseTo(inWindow.reduce((sum, s) => sum + s.billsec, 0) / 60, 2);
    expect(d.high_risk_pct).toBeCloseTo((100 * high.length) / analysed.length, 2);
    expect(d.high_risk_pct).toBe(40);
    expect(d.risk_distribution).toEqual([
      { bucket: "0-29", count: analysed.filter((s) => s.probability! <= 29).length },
      { bucket: "30-69", count: analysed.filter((s) => s.probability! >= 30 && s.probability! <= 69).length },
      { bucket: "70-100", count: high.length },
    ]);
    expect(d.calls_per_day).toEqual(
      dates.map((date) => ({
        date,
        calls: inWindow.filter((s) => iso(s.at).startsWith(date)).length,
        high_risk: high.filter((s) => iso(s.at).startsWith(date)).length,
      })),
    );
    expect(d.calls_per_day.at(-2)).toEqual({ date: iso(T - DAY).slice(0, 10), calls: 3, high_risk: 0 });
    expect(d.spend_per_day).toHaveLength(30);
    for (const { date, spend } of d.spend_per_day) expect(spend, date).toBeCloseTo(spendOn(date), 6);
    expect(d.spend_per_day.at(-3)).toEqual({ date: iso(T - 2 * DAY).slice(0, 10), spend: 1.25 });
    expect(d.spend_per_day.at(-2)).toEqual({ date: iso(T - DAY).slice(0, 10), spend: 0.75 });
    expect(d.spend_period).toBeCloseTo(
      dates.reduce((sum, date) => sum + spendOn(date), 0),
      6,
    );

    expect(d.calls_by_country).toEqual([
      { code: "GB", name: "United Kingdom", iso: true, count: 2 },
      { code: "CA", name: "Canada", iso: true, count: 1 },
      { code: "FR", name: "France", iso: true, count: 1 },
      { code: "+882", name: "International +882", iso: false, count: 1 },
      { code: "US", name: "United States", iso: true, count: 1 },
      { code: null, name: "Unknown", iso: false, count: 1 },
    ]);
    expect(d.recent_high_risk.map((c) => c.analysis?.probability)).toEqual([70, 85]);
    expect(d.recent_high_risk[0]).toMatchObject({
      customer_id: owner.account.id,
      analysis: { recommendation: "block", category: "robocall" },
    });

    const balance = bodyOf(await owner.client.get("/api/customer/balance"), 200);
    expect(d).toMatchObject({
      balance: balance.balance,
      plan: { code: "payg", name: balance.plan_name, ports: balance.ports, included_minutes: balance.included_minutes, renews_at: null },
      cycle_minutes_used: balance.cycle_minutes_used,
      active_calls: 0,
    });
  });

  it("with days=1 counts today only; days outside 1-366 is 422 naming days", async () => {
    const { owner, T } = await seededAccount();
    const one = await owner.client.get("/api/customer/dashboard?days=1");
    expectStatus(one, 200);
    expect(one.body).toMatchObject({ days: 1, from: iso(T), calls_period: 3, calls_today: 3 });
    expect(one.body.calls_per_day).toEqual([{ date: iso(T).slice(0, 10), calls: 3, high_risk: 1 }]);
    expect(bodyOf(await owner.client.get("/api/customer/dashboard?days=366"), 200).calls_per_day).toHaveLength(366);
    for (const days of ["0", "367", "x"]) {
      const res = await owner.client.get(`/api/customer/dashboard?days=${days}`);
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]?.loc).toEqual(["query", "days"]);
    }
  });

  it("is empty and whole for a new account", async () => {
    const owner = await createAccount();
    const d = bodyOf(await owner.client.get("/api/customer/dashboard?days=7"), 200);
    expect(d).toMatchObject({ calls_today: 0, calls_period: 0, minutes_period: 0, spend_period: 0, high_risk_pct: 0, balance: 5 });
    expect(d.risk_distribution).toEqual([
      { bucket: "0-29", count: 0 },
      { bucket: "30-69", count: 0 },
      { bucket: "70-100", count: 0 },
    ]);
    expect(d.calls_per_day).toHaveLength(7);
    expect(d.calls_by_country).toEqual([]);
    expect(d.recent_high_risk).toEqual([]);
  });
});

describe("GET /api/customer/stats", () => {
  it("totals the calls started in [from, to) and the money posted then", async () => {
    const { owner, T } = await seededAccount();
    const day = iso(T - DAY).slice(0, 10);
    const res = await owner.client.get(`/api/customer/stats?from=${day}&to=${iso(T)}`);
    expectStatus(res, 200);
    expect(res.body).toEqual({
      from: iso(T - DAY),
      to: iso(T),
      calls: 3,
      answered_calls: 2,
      minutes: 2.5,
      spend: 0.75,
      by_category: { legitimate: 1, robocall: 1 },
      by_recommendation: { allow: 1, review: 1 },
      avg_probability: 35,
    });
  });

  it("without bounds covers every call of the account, and only its own", async () => {
    const { owner, seeds } = await seededAccount();
    const res = await owner.client.get("/api/customer/stats");
    expectStatus(res, 200);
    const analysed = seeds.filter((s) => s.probability !== null);
    expect(res.body).toMatchObject({
      calls: seeds.length,
      answered_calls: seeds.filter((s) => s.answered).length,
      by_recommendation: { block: 2, allow: 2, review: 2 },
    });
    expect(res.body.from).toBeUndefined();
    expect(res.body.avg_probability).toBeCloseTo(analysed.reduce((sum, s) => sum + s.probability!, 0) / analysed.length, 2);
    expect(res.body.minutes).toBeCloseTo(seeds.reduce((sum, s) => sum + s.billsec, 0) / 60, 2);
    expect(res.body.by_category).toEqual({ unknown: 1, credit_card_scam: 1, legitimate: 2, robocall: 2 });
  });

  it("refuses a malformed from, naming it", async () => {
    const owner = await createAccount();
    const res = await owner.client.get("/api/customer/stats?from=yesterday");
    expectStatus(res, 422);
    expect(issuesOf(res.body)[0]?.loc).toEqual(["query", "from"]);
  });
});
