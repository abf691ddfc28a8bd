// The two Durable Objects the foundation already relies on: the Limiter's windows and the
// AccountLedger's exact, idempotent credits.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const limiter = (key: string) => env.LIMITER.get(env.LIMITER.idFromName(key));
const ledger = (key: string) => env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(key));

describe("Limiter", () => {
  it("lets exactly `limit` of many simultaneous hits through, then says how long to wait", async () => {
    const key = `ip:${crypto.randomUUID()}`;
    const verdicts = await Promise.all(Array.from({ length: 25 }, () => limiter(key).hit(10, 60)));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
    const refused = verdicts.find((v) => !v.allowed)!;
    expect(refused.retryAfterSec).toBeGreaterThan(0);
    expect(refused.retryAfterSec).toBeLessThanOrEqual(60);
    expect((await limiter(key).check(10, 60)).allowed).toBe(false);
  });

  it("keeps keys apart and forgets a key on reset", async () => {
    const a = `email:${crypto.randomUUID()}`;
    const b = `email:${crypto.randomUUID()}`;
    await limiter(a).hit(1, 60);
    expect((await limiter(a).hit(1, 60)).allowed).toBe(false);
    expect((await limiter(b).hit(1, 60)).allowed).toBe(true);
    await limiter(a).reset();
    expect((await limiter(a).hit(1, 60)).allowed).toBe(true);
  });
});

describe("AccountLedger credits", () => {
  it("adds many simultaneous credits exactly, each entry carrying its balance_after", async () => {
    const account = ledger(crypto.randomUUID());
    const createdAt = new Date().toISOString();
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => account.credit({ entryId: `topup-${i}`, type: "topup", amountMicros: 100_001, createdAt })),
    );
    expect((await account.summary()).balance_micros).toBe(5_000_050);
    const { total, items } = await account.listEntries(500, 0);
    expect(total).toBe(50);
    expect(items.map((e) => e.balance_after_micros).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => (i + 1) * 100_001));
  });

  it("applies a retried credit once", async () => {
    const account = ledger(crypto.randomUUID());
    const credit = { entryId: "payment-42", type: "topup", amountMicros: 25_000_000, createdAt: new Date().toISOString() };
    const [first, second] = await Promise.all([account.credit(credit), account.credit(credit)]);
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    expect((await account.summary()).balance_micros).toBe(25_000_000);
  });

  it("refuses a credit that is not a positive whole number of micro-dollars", async () => {
    const account = ledger(crypto.randomUUID());
    const createdAt = new Date().toISOString();
    for (const amountMicros of [0, -5, 1.5]) {
      const result = await account.credit({ entryId: `bad-${amountMicros}`, type: "topup", amountMicros, createdAt });
      expect(result).toEqual({ ok: false, reason: "invalid_amount" });
    }
    expect((await account.summary()).balance_micros).toBe(0);
  });
});
