// The AccountLedger under contention: ports, the last dollars, repeated call ends, and the
// billing rules (minimum billable seconds, included minutes, the pilot waiver); its storage
// versions, and each change written whole or not at all.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  AccountLedger,
  LEDGER_MIGRATIONS,
  migrate,
  storageVersion,
  type Admission,
  type AdmitInput,
} from "../../durable-objects/account-ledger.ts";

const ledger = () => env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(crypto.randomUUID()));
const at = () => new Date().toISOString();
const PAYG = { ratePerMinuteMicros: 12_000, minBillableSeconds: 60, capSeconds: 14_400 };

const admission = (overrides: Partial<AdmitInput> = {}): AdmitInput => ({
  callId: crypto.randomUUID(),
  ports: 10,
  terms: PAYG,
  pilot: null,
  includedMinutes: null,
  at: at(),
  ...overrides,
});

async function funded(micros: number) {
  const account = ledger();
  await account.credit({ entryId: "seed", type: "credit", amountMicros: micros, createdAt: at() });
  return account;
}

describe("admission", () => {
  it("admits exactly 10 of 200 simultaneous calls on 10 ports", async () => {
    const account = await funded(100_000_000);
    const results = await Promise.all(Array.from({ length: 200 }, () => account.admit(admission())));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect(results.filter((r) => !r.ok && r.reason === "no_port")).toHaveLength(190);
    expect((await account.summary()).ports_in_use).toBe(10);
  });

  it("frees the port when the call ends", async () => {
    const account = await funded(10_000_000);
    const first = await account.admit(admission({ ports: 1 }));
    expect(first.ok).toBe(true);
    expect(await account.admit(admission({ ports: 1 }))).toEqual({ ok: false, reason: "no_port" });
    await account.endCall({ callId: (first as { callId: string }).callId, answeredSeconds: 0, at: at() });
    expect((await account.admit(admission({ ports: 1 }))).ok).toBe(true);
  });

  it("caps max_call_seconds by what the balance buys, and refuses what cannot pay the minimum", async () => {
    const account = await funded(120_000); // $0.12 at $0.012/min: 10 minutes
    const first = await account.admit(admission());
    expect(first).toMatchObject({ ok: true, maxCallSeconds: 600 });
    // All of it is now set aside for the first call.
    expect(await account.admit(admission())).toEqual({ ok: false, reason: "no_credit" });
    await expect((await funded(11_999)).admit(admission())).resolves.toEqual({ ok: false, reason: "no_credit" });
  });

  it("never takes the balance below zero when many calls race for the last dollars", async () => {
    const account = await funded(1_000_000); // $1 buys 5,000 s at $0.012/min
    const tenMinuteCap = { ...PAYG, capSeconds: 600 }; // each call sets aside at most $0.12
    const results = await Promise.all(Array.from({ length: 60 }, () => account.admit(admission({ ports: 100, terms: tenMinuteCap }))));
    const admitted = results.flatMap((r) => (r.ok ? [r as Admission] : []));
    // Eight full ten-minute reservations, a ninth for the last $0.04 (200 s), then nothing.
    expect(admitted.map((a) => a.maxCallSeconds).sort((a, b) => b - a)).toEqual([600, 600, 600, 600, 600, 600, 600, 600, 200]);
    expect(results.filter((r) => !r.ok && r.reason === "no_credit")).toHaveLength(51);
    // Every admitted call talks past its cap; each is billed no more than it set aside.
    await Promise.all(admitted.map((a) => account.endCall({ callId: a.callId, answeredSeconds: a.maxCallSeconds + 500, at: at() })));
    expect((await account.summary()).balance_micros).toBe(0);
    const { items } = await account.listEntries(500, 0);
    expect(items.every((e) => e.balance_after_micros >= 0)).toBe(true);
  });

  it("returns the same ticket when an admission is retried", async () => {
    const account = await funded(10_000_000);
    const request = admission({ ports: 1 });
    const [a, b] = await Promise.all([account.admit(request), account.admit(request)]);
    expect(a).toEqual(b);
    expect((await account.summary()).ports_in_use).toBe(1);
  });
});

describe("call end", () => {
  it("charges once when the end is reported twice", async () => {
    const account = await funded(10_000_000);
    const ticket = await account.admit(admission());
    const callId = (ticket as { callId: string }).callId;
    const end = { callId, answeredSeconds: 125, at: at() };
    const [first, second] = await Promise.all([account.endCall(end), account.endCall(end)]);
    expect(first).toEqual(second);
    expect(first).toMatchObject({ ok: true, billsec: 125, chargedMicros: 25_000 }); // 125 s at $0.012/min
    expect((await account.summary()).balance_micros).toBe(10_000_000 - 25_000);
    expect((await account.listEntries(10, 0)).items.filter((e) => e.type === "call")).toHaveLength(1);
  });

  it("bills an answered call at least the minimum billable seconds, and an unanswered one nothing", async () => {
    const account = await funded(10_000_000);
    const short = (await account.admit(admission())) as { callId: string };
    const shortCharge = await account.endCall({ callId: short.callId, answeredSeconds: 4, at: at() });
    expect(shortCharge).toMatchObject({ billsec: 60, chargedMicros: 12_000 });
    const unanswered = (await account.admit(admission())) as { callId: string };
    const unansweredCharge = await account.endCall({ callId: unanswered.callId, answeredSeconds: 0, at: at() });
    expect(unansweredCharge).toMatchObject({ billsec: 0, chargedMicros: 0 });
    expect((await account.listEntries(10, 0)).items.map((e) => e.type)).toEqual(["call", "credit"]);
  });

  it("uses included minutes before money, and counts them in the cycle", async () => {
    const account = await funded(1_000_000);
    const starter = { ratePerMinuteMicros: 10_000, minBillableSeconds: 60, capSeconds: 14_400 };
    const call = (await account.admit(admission({ terms: starter, includedMinutes: 2 }))) as { callId: string };
    const charge = await account.endCall({ callId: call.callId, answeredSeconds: 180, at: at() });
    expect(charge).toMatchObject({ billsec: 180, chargedMicros: 10_000 }); // 120 s included, 60 s paid
    expect((await account.summary()).cycle_seconds_used).toBe(180);
  });

  it("waives pilot minutes and reports the waived amount", async () => {
    const account = await funded(5_000_000);
    const call = (await account.admit(admission({ pilot: { minutesLimit: 1 } }))) as { callId: string };
    const charge = await account.endCall({ callId: call.callId, answeredSeconds: 90, at: at() });
    expect(charge).toMatchObject({ billsec: 90, chargedMicros: 6_000, waivedMicros: 12_000 });
    const summary = await account.summary();
    expect(summary).toMatchObject({ pilot_seconds_used: 60, waived_total_micros: 12_000, balance_micros: 4_994_000 });
    const [entry] = (await account.listEntries(1, 0)).items;
    expect(entry).toMatchObject({ type: "call", amount_micros: -6_000, waived_micros: 12_000, call_id: call.callId });
  });

  it("answers unknown_call for a call it never admitted", async () => {
    const account = await funded(1_000_000);
    const end = { callId: crypto.randomUUID(), answeredSeconds: 10, at: at() };
    expect(await account.endCall(end)).toEqual({ ok: false, reason: "unknown_call" });
  });
});

describe("debits", () => {
  it("takes money only when the available balance covers it, once per entry id", async () => {
    const account = await funded(1_000_000);
    const fee = { entryId: "fee-1", type: "analysis", amountMicros: 600_000, createdAt: at() };
    const [a, b] = await Promise.all([account.debit(fee), account.debit(fee)]);
    expect(a).toEqual(b);
    expect(await account.debit({ ...fee, entryId: "fee-2" })).toEqual({ ok: false, reason: "insufficient_balance" });
    expect((await account.summary()).balance_micros).toBe(400_000);
  });

  it("counts money set aside for running calls as unavailable", async () => {
    const account = await funded(120_000);
    await account.admit(admission());
    expect(await account.debit({ entryId: "x", type: "analysis", amountMicros: 1, createdAt: at() })).toEqual({
      ok: false,
      reason: "insufficient_balance",
    });
  });
});

describe("storage versions", () => {
  const version = (stub: ReturnType<typeof ledger>) => runInDurableObject(stub, (_, state) => storageVersion(state.storage.sql));

  it("brings a new ledger's storage to the latest version", async () => {
    const account = await funded(1_000);
    expect(await version(account)).toBe(LEDGER_MIGRATIONS.length);
  });

  it("adopts a ledger made before versioning, keeping its money and its running calls", async () => {
    const account = await funded(10_000_000);
    const call = (await account.admit(admission())) as Admission;
    await runInDurableObject(account, (_, state) => {
      state.storage.sql.exec("DROP TABLE schema_version"); // as the ledger was before it had versions
      expect(storageVersion(state.storage.sql)).toBe(0);
      new AccountLedger(state, env);
      expect(storageVersion(state.storage.sql)).toBe(LEDGER_MIGRATIONS.length);
    });
    expect(await account.summary()).toMatchObject({ balance_micros: 10_000_000, ports_in_use: 1 });
    expect(await account.activeCallIds()).toEqual([call.callId]);
  });

  it("runs each step once, in order, and only the steps the storage has not had", async () => {
    await runInDurableObject(ledger(), (_, state) => {
      const steps = [
        ...LEDGER_MIGRATIONS,
        (sql: SqlStorage) => sql.exec("CREATE TABLE notes (id TEXT PRIMARY KEY)"),
        (sql: SqlStorage) => sql.exec("ALTER TABLE notes ADD COLUMN body TEXT"), // fails if run twice
      ];
      migrate(state.storage, steps.slice(0, -1));
      migrate(state.storage, steps);
      migrate(state.storage, steps);
      expect(storageVersion(state.storage.sql)).toBe(steps.length);
      state.storage.sql.exec("INSERT INTO notes (id, body) VALUES ('a', 'b')");
    });
  });

  it("leaves the storage as it was when a step fails", async () => {
    await runInDurableObject(ledger(), (_, state) => {
      const steps = [...LEDGER_MIGRATIONS, (sql: SqlStorage) => sql.exec("CREATE TABLE half (id TEXT); SELECT * FROM no_such_table")];
      expect(() => migrate(state.storage, steps)).toThrow();
      expect(storageVersion(state.storage.sql)).toBe(LEDGER_MIGRATIONS.length);
      expect(state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'half'").toArray()).toEqual([]);
    });
  });

  it("refuses storage written by a newer version of the code", async () => {
    await runInDurableObject(ledger(), (_, state) => {
      state.storage.sql.exec("UPDATE schema_version SET version = ?", LEDGER_MIGRATIONS.length + 1);
      expect(() => new AccountLedger(state, env)).toThrow(/newer than/);
    });
  });
});

describe("one change, one transaction", () => {
  it("leaves the call running and the counters untouched when its charge cannot be written", async () => {
    const account = await funded(10_000_000);
    const call = (await account.admit(admission({ pilot: { minutesLimit: 1 } }))) as Admission;
    // An entry already holding the id the charge would take makes the charge's INSERT fail.
    await account.credit({ entryId: `call:${call.callId}`, type: "credit", amountMicros: 1, createdAt: at() });
    const before = await account.summary();
    await runInDurableObject(account, (instance) => {
      expect(() => instance.endCall({ callId: call.callId, answeredSeconds: 90, at: at() })).toThrow(/UNIQUE/);
    });
    expect(await account.summary()).toEqual(before);
    expect(await account.activeCallIds()).toEqual([call.callId]);
    expect((await account.listEntries(10, 0)).total).toBe(2);
  });

  it("stores a settled call's result with its charge, so a repeated end returns it", async () => {
    const account = await funded(10_000_000);
    const call = (await account.admit(admission())) as Admission;
    const first = await account.endCall({ callId: call.callId, answeredSeconds: 61, at: at() });
    await runInDurableObject(account, (_, state) => {
      const rows = state.storage.sql.exec<{ result: string }>("SELECT result FROM settled_calls WHERE call_id = ?", call.callId).toArray();
      expect(rows.map((r) => JSON.parse(r.result))).toEqual([first]);
    });
    expect(await account.endCall({ callId: call.callId, answeredSeconds: 999, at: at() })).toEqual(first);
  });
});
