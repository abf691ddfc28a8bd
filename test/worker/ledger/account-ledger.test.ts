// The AccountLedger under contention: ports, the last dollars, repeated call ends, and the
// billing rules (minimum billable seconds, included minutes, the pilot waiver), played through
// its call RPC (admitCall, report) as the Worker plays it for the SIP nodes; its storage
// versions, and each change written whole or not at all.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AccountLedger } from "../../../durable-objects/account-ledger.ts";
import { LEDGER_MIGRATIONS, migrate, storageVersion } from "../../../durable-objects/ledger-migrations.ts";
import {
  admitted,
  answered,
  callEntries,
  ended,
  fundedLedger,
  ledgerOf,
  LIMITS,
  MICROS_PER_SECOND,
  ONE_SLICE,
  sipNode,
  type LedgerStub,
} from "../fixtures/ledger.ts";

const at = () => new Date().toISOString();

describe("admission", () => {
  it("admits exactly 10 of 200 simultaneous calls on 10 ports", async () => {
    const { ledger, customerId } = await fundedLedger(100_000_000, { ports: 10 });
    const node = sipNode(ledger, customerId);
    const results = await Promise.all(Array.from({ length: 200 }, () => node.admit()));
    expect(results.filter((r) => r.decision === "admit")).toHaveLength(10);
    const refused = results.filter((r) => r.decision === "reject");
    expect(refused).toHaveLength(190);
    expect(refused.every((r) => r.sip_code === 503 && r.reason === "no_free_port")).toBe(true);
    expect((await ledger.summary()).ports_in_use).toBe(10);
    expect(await ledger.liveCalls()).toHaveLength(10);
  });

  it("frees the port when the call ends", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000, { ports: 1 });
    const node = sipNode(ledger, customerId);
    const first = admitted(await node.admit());
    expect(await node.admit()).toMatchObject({ decision: "reject", sip_code: 503, reason: "no_free_port" });
    await node.report([node.event(first.call_id, ended(null, Date.now()))]);
    expect((await ledger.summary()).ports_in_use).toBe(0);
    admitted(await node.admit());
  });

  it("grants a fair share of the credit, at most a slice, and refuses 402 what cannot get the minimum grant", async () => {
    // $10 buys far more than a slice for each of the 10 ports: a slice (60 s) each.
    const rich = await fundedLedger(10_000_000);
    expect(admitted(await sipNode(rich.ledger, rich.customerId).admit()).granted_seconds).toBe(60);
    // $0.012 buys 60 s, shared by 10 ports: 6 s, the minimum grant.
    const poor = await fundedLedger(12_000);
    const ticket = admitted(await sipNode(poor.ledger, poor.customerId).admit());
    expect(ticket).toMatchObject({ granted_seconds: 6, max_call_seconds: LIMITS.capSeconds });
    expect(await poor.ledger.summary()).toMatchObject({ balance_micros: 12_000, available_micros: 12_000 - 6 * MICROS_PER_SECOND });
    // A micro-dollar less buys 59 s: 5 s a port, under the minimum.
    const poorer = await fundedLedger(11_999);
    expect(await sipNode(poorer.ledger, poorer.customerId).admit()).toMatchObject({
      decision: "reject",
      sip_code: 402,
      reason: "insufficient_credit",
    });
    expect((await poorer.ledger.summary()).ports_in_use).toBe(0);
  });

  it("never takes the balance below zero when many calls race for the last dollars", async () => {
    const { ledger, customerId } = await fundedLedger(1_000_000, { ports: 100 }); // $1 buys 5,000 s
    const node = sipNode(ledger, customerId);
    const results = await Promise.all(Array.from({ length: 60 }, () => node.admit()));
    const tickets = results.filter((r) => r.decision === "admit").map((r) => admitted(r));
    expect(tickets.length).toBeGreaterThan(0);
    const granted = tickets.reduce((sum, t) => sum + t.granted_seconds, 0);
    expect(granted * MICROS_PER_SECOND).toBeLessThanOrEqual(1_000_000);
    expect(tickets.every((t) => t.granted_seconds >= LIMITS.minGrantSeconds)).toBe(true);
    expect((await ledger.summary()).available_micros).toBe(1_000_000 - granted * MICROS_PER_SECOND);
    // Every call talks 500 s past its grant (no report topped it up): each is billed what it was granted, no more.
    const endAt = Date.now();
    await Promise.all(tickets.map((t) => node.report([node.event(t.call_id, ended(endAt - (t.granted_seconds + 500) * 1000, endAt))])));
    const summary = await ledger.summary();
    expect(summary).toMatchObject({ balance_micros: 1_000_000 - granted * MICROS_PER_SECOND, ports_in_use: 0 });
    expect(summary.balance_micros).toBeGreaterThanOrEqual(0);
    const { items } = await ledger.listEntries(500, 0);
    expect(items.every((e) => e.balance_after_micros >= 0)).toBe(true);
  });

  it("asks for the admission state it does not hold yet, and admits from each new state written through", async () => {
    const bare = ledgerOf(crypto.randomUUID());
    await bare.credit({ entryId: "seed", type: "credit", amountMicros: 1_000_000, createdAt: at() });
    expect(await sipNode(bare, "unused").admit()).toEqual({ decision: "need_state" });

    const { ledger, customerId, state } = await fundedLedger(1_000_000, { ports: 1 });
    const node = sipNode(ledger, customerId);
    admitted(await node.admit());
    expect(await node.admit()).toMatchObject({ decision: "reject", reason: "no_free_port" });
    // A plan with more ports, then a suspension: each applies from the next call on.
    await ledger.loadAdmissionState({ ...state, account: { ...state.account, ports: 2 } }, at());
    admitted(await node.admit());
    await ledger.loadAdmissionState({ ...state, account: { ...state.account, ports: 5, status: "suspended" } }, at());
    expect(await node.admit()).toMatchObject({ decision: "reject", sip_code: 403, reason: "account_suspended" });
    // The account is gone: the state is dropped and asked for again.
    await ledger.loadAdmissionState(null, at());
    expect(await node.admit()).toEqual({ decision: "need_state" });
    expect((await ledger.summary()).ports_in_use).toBe(2);
  });

  it("ignores a source outside the account's whitelist, holding nothing", async () => {
    const { ledger, customerId } = await fundedLedger(1_000_000);
    expect(await sipNode(ledger, customerId).admit({ src_ip: "198.51.100.7" })).toEqual({ decision: "ignore" });
    expect((await ledger.summary()).ports_in_use).toBe(0);
  });
});

describe("call end", () => {
  it("charges once when the end is reported twice at once and retried with the same seq", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const call = admitted(await node.admit());
    const t0 = Date.now();
    const batch = [node.event(call.call_id, answered(t0)), node.event(call.call_id, ended(t0, t0 + 125_000))];
    await Promise.all([node.report(batch), node.report(batch)]);
    await node.report(batch);
    const entries = await callEntries(ledger, call.call_id);
    expect(entries).toEqual([expect.objectContaining({ type: "call", amount_micros: -25_000 })]); // 125 s at $0.012/min
    expect(await ledger.summary()).toMatchObject({ balance_micros: 10_000_000 - 25_000, ports_in_use: 0, cycle_seconds_used: 125 });
  });

  it("bills an answered call at least the minimum billable seconds, and an unanswered one nothing", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const t0 = Date.now();
    const short = admitted(await node.admit());
    await node.report([node.event(short.call_id, answered(t0)), node.event(short.call_id, ended(t0, t0 + 4_000))]);
    expect(await callEntries(ledger, short.call_id)).toEqual([expect.objectContaining({ amount_micros: -12_000 })]); // 60 s
    const unanswered = admitted(await node.admit());
    await node.report([node.event(unanswered.call_id, ended(null, t0 + 20_000))]);
    expect(await callEntries(ledger, unanswered.call_id)).toEqual([]);
    expect((await ledger.listEntries(10, 0)).items.map((e) => e.type)).toEqual(["call", "credit"]);
    expect(await ledger.summary()).toMatchObject({ balance_micros: 10_000_000 - 12_000, ports_in_use: 0 });
  });

  it("bills no more than the credit granted, however long the node lets the call run", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId); // 60 s slices
    const call = admitted(await node.admit());
    expect(call.granted_seconds).toBe(60);
    const t0 = Date.now();
    await node.report([node.event(call.call_id, answered(t0)), node.event(call.call_id, ended(t0, t0 + 95_000))]);
    expect(await callEntries(ledger, call.call_id)).toEqual([expect.objectContaining({ amount_micros: -60 * MICROS_PER_SECOND })]);
  });

  it("uses included minutes before money, and counts them in the cycle", async () => {
    // Starter: $0.010 a minute, 2 minutes included.
    const { ledger, customerId } = await fundedLedger(1_000_000, { ratePerMinuteMicros: 10_000, includedMinutes: 2 });
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const call = admitted(await node.admit());
    const t0 = Date.now();
    await node.report([node.event(call.call_id, answered(t0)), node.event(call.call_id, ended(t0, t0 + 180_000))]);
    expect(await callEntries(ledger, call.call_id)).toEqual([expect.objectContaining({ amount_micros: -10_000 })]); // 120 s included, 60 s paid
    expect(await ledger.summary()).toMatchObject({ cycle_seconds_used: 180, balance_micros: 990_000 });
  });

  it("waives pilot minutes and reports the waived amount", async () => {
    const pilot = { pilotEndsAt: new Date(Date.now() + 86_400_000).toISOString(), pilotMinutesLimit: 1 };
    const { ledger, customerId } = await fundedLedger(5_000_000, pilot);
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const call = admitted(await node.admit());
    const t0 = Date.now();
    await node.report([node.event(call.call_id, answered(t0)), node.event(call.call_id, ended(t0, t0 + 90_000))]);
    expect(await ledger.summary()).toMatchObject({ pilot_seconds_used: 60, waived_total_micros: 12_000, balance_micros: 4_994_000 });
    const [entry] = (await ledger.listEntries(1, 0)).items;
    expect(entry).toMatchObject({ type: "call", amount_micros: -6_000, waived_micros: 12_000, call_id: call.call_id });
  });

  it("answers ended (unknown_call) for a live call it never admitted, and charges nothing for its end", async () => {
    const { ledger, customerId } = await fundedLedger(1_000_000);
    const node = sipNode(ledger, customerId);
    const stranger = crypto.randomUUID();
    const answer = await node.report([node.event(stranger, ended(Date.now() - 30_000, Date.now()))], [stranger]);
    expect(answer).toEqual({ grants: [], ended: [{ call_id: stranger, reason: "unknown_call" }] });
    expect((await ledger.listEntries(10, 0)).total).toBe(1);
    expect(await ledger.knowsCall(stranger)).toBe(false);
  });
});

describe("debits", () => {
  it("takes money only when the available balance covers it, once per entry id", async () => {
    const { ledger } = await fundedLedger(1_000_000);
    const fee = { entryId: "fee-1", type: "analysis", amountMicros: 600_000, createdAt: at() };
    const [a, b] = await Promise.all([ledger.debit(fee), ledger.debit(fee)]);
    expect(a).toEqual(b);
    expect(await ledger.debit({ ...fee, entryId: "fee-2" })).toEqual({ ok: false, reason: "insufficient_balance" });
    expect((await ledger.summary()).balance_micros).toBe(400_000);
  });

  it("counts the credit held by running calls as unavailable", async () => {
    const { ledger, customerId } = await fundedLedger(120_000, { ports: 1 });
    const call = admitted(await sipNode(ledger, customerId).admit());
    expect(call.granted_seconds).toBe(60); // holds 12,000 of the 120,000
    const fee = (entryId: string, amountMicros: number) => ({ entryId, type: "analysis", amountMicros, createdAt: at() });
    expect(await ledger.debit(fee("over", 108_001))).toEqual({ ok: false, reason: "insufficient_balance" });
    expect(await ledger.debit(fee("exact", 108_000))).toMatchObject({ ok: true });
    expect(await ledger.summary()).toMatchObject({ balance_micros: 12_000, available_micros: 0 });
  });
});

describe("storage versions", () => {
  const version = (stub: LedgerStub) => runInDurableObject(stub, (_, state) => storageVersion(state.storage.sql));

  it("brings a new ledger's storage to the latest version", async () => {
    const { ledger } = await fundedLedger(1_000);
    expect(await version(ledger)).toBe(LEDGER_MIGRATIONS.length);
  });

  /** Empties the object's storage and lays it out as `steps` of the migrations left it. */
  function asOlderLedger(state: DurableObjectState, steps: number) {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .toArray();
    for (const { name } of tables) sql.exec(`DROP TABLE "${name}"`);
    // Before versioning (0) the first step's tables were there, with no schema_version.
    if (steps === 0) LEDGER_MIGRATIONS[0]!(sql);
    else migrate(state.storage, LEDGER_MIGRATIONS.slice(0, steps));
    expect(storageVersion(sql)).toBe(steps);
  }

  // 0: made before versioning; 2: made before the call ledger (no leases, outbox, admission state).
  it.each([0, 2])("upgrades a ledger of version %i, keeping its money and its running calls, which can still end", async (from) => {
    const { ledger } = await fundedLedger(0);
    const callId = crypto.randomUUID();
    const terms = { ratePerMinuteMicros: 12_000, minBillableSeconds: 60, capSeconds: 14_400 };
    const reservation = { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 600, reservedMicros: 120_000, maxCallSeconds: 600 };
    await runInDurableObject(ledger, async (_, state) => {
      asOlderLedger(state, from);
      state.storage.sql.exec("UPDATE state SET balance_micros = 10000000 WHERE id = 1");
      state.storage.sql.exec(
        `INSERT INTO active_calls (call_id, terms, reservation, reserved_micros, pilot_seconds, included_seconds, admitted_at)
         VALUES (?, ?, ?, 120000, 0, 0, ?)`,
        callId,
        JSON.stringify(terms),
        JSON.stringify(reservation),
        at(),
      );
      const upgraded = new AccountLedger(state, env);
      expect(storageVersion(state.storage.sql)).toBe(LEDGER_MIGRATIONS.length);
      expect(upgraded.summary()).toMatchObject({ balance_micros: 10_000_000, available_micros: 9_880_000, ports_in_use: 1 });
      expect(upgraded.liveCalls()).toEqual([expect.objectContaining({ callId, nodeId: null, status: "ringing", grantedSeconds: 600 })]);
      // The node that carries it still ends it, charged on the terms it was admitted with.
      const t0 = Date.now();
      await upgraded.report({
        nodeId: "node-a",
        bootId: "boot-1",
        events: [{ call_id: callId, customer_id: crypto.randomUUID(), seq: 1, event: ended(t0, t0 + 100_000) }],
        live: [],
        nowMs: t0 + 100_000,
        limits: LIMITS,
      });
      expect(upgraded.summary()).toMatchObject({ balance_micros: 10_000_000 - 20_000, ports_in_use: 0 });
    });
  });

  it("runs each step once, in order, and only the steps the storage has not had", async () => {
    const { ledger } = await fundedLedger(0);
    await runInDurableObject(ledger, (_, state) => {
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
    const { ledger } = await fundedLedger(0);
    await runInDurableObject(ledger, (_, state) => {
      const steps = [...LEDGER_MIGRATIONS, (sql: SqlStorage) => sql.exec("CREATE TABLE half (id TEXT); SELECT * FROM no_such_table")];
      expect(() => migrate(state.storage, steps)).toThrow();
      expect(storageVersion(state.storage.sql)).toBe(LEDGER_MIGRATIONS.length);
      expect(state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'half'").toArray()).toEqual([]);
    });
  });

  it("refuses storage written by a newer version of the code", async () => {
    const { ledger } = await fundedLedger(0);
    await runInDurableObject(ledger, (_, state) => {
      state.storage.sql.exec("UPDATE schema_version SET version = ?", LEDGER_MIGRATIONS.length + 1);
      expect(() => new AccountLedger(state, env)).toThrow(/newer than/);
    });
  });
});

describe("one change, one transaction", () => {
  it("leaves the call running and the counters untouched when its charge cannot be written", async () => {
    const pilot = { pilotEndsAt: new Date(Date.now() + 86_400_000).toISOString(), pilotMinutesLimit: 1 };
    const { ledger, customerId } = await fundedLedger(10_000_000, pilot);
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const call = admitted(await node.admit());
    // An entry already holding the id the charge would take makes the charge's INSERT fail.
    await ledger.credit({ entryId: `call:${call.call_id}`, type: "credit", amountMicros: 1, createdAt: at() });
    const before = await ledger.summary();
    const t0 = Date.now();
    const batch = [node.event(call.call_id, answered(t0)), node.event(call.call_id, ended(t0, t0 + 90_000))];
    await expect(runInDurableObject(ledger, (instance) => instance.report({ ...reportOf(node, batch) }))).rejects.toThrow(/UNIQUE/);
    expect(await ledger.summary()).toEqual(before);
    // Not even the answer was kept: the retried batch finds the call as it was.
    expect(await ledger.liveCalls()).toEqual([expect.objectContaining({ callId: call.call_id, status: "ringing" })]);
    expect((await ledger.listEntries(10, 0)).total).toBe(2);
  });

  it("keeps a settled call's charge, so a later end of the same call changes nothing", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const call = admitted(await node.admit());
    const t0 = Date.now();
    await node.report([node.event(call.call_id, answered(t0)), node.event(call.call_id, ended(t0, t0 + 61_000))]);
    const settled = await ledger.summary();
    await node.report([node.event(call.call_id, ended(t0, t0 + 999_000))]);
    expect(await ledger.summary()).toEqual(settled);
    expect(await callEntries(ledger, call.call_id)).toEqual([expect.objectContaining({ amount_micros: -61 * MICROS_PER_SECOND })]);
    await runInDurableObject(ledger, (_, state) => {
      const rows = state.storage.sql.exec<{ result: string }>("SELECT result FROM settled_calls WHERE call_id = ?", call.call_id).toArray();
      expect(rows.map((r) => JSON.parse(r.result))).toEqual([expect.objectContaining({ billsec: 61, chargedMicros: 12_200 })]);
    });
    expect(await ledger.knowsCall(call.call_id)).toBe(true);
  });
});

/** The RPC input of a node's report, for calling the instance directly. */
function reportOf(node: ReturnType<typeof sipNode>, events: Parameters<ReturnType<typeof sipNode>["report"]>[0]) {
  return { nodeId: node.nodeId, bootId: node.bootId, events, live: [], nowMs: Date.now(), limits: ONE_SLICE };
}
