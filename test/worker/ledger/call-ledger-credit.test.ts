// The call ledger's credit: held in slices shared by concurrent calls and topped up by the node's reports.
import { describe, expect, it } from "vitest";
import { admitted, answered, callEntries, ended, fundedLedger, MICROS_PER_SECOND, sipNode, type Ticket } from "../fixtures/ledger.ts";

describe("credit slices", () => {
  it("shares 3 minutes of credit among 10 calls at once: never below zero, cut when it runs out, charged what the ledger sums", async () => {
    const { ledger, customerId } = await fundedLedger(36_000, { ports: 10 }); // 180 s at $0.012/min
    const node = sipNode(ledger, customerId); // 60 s slices, 6 s minimum grant
    const results = await Promise.all(Array.from({ length: 10 }, () => node.admit()));
    expect(results.every((r) => r.decision === "admit")).toBe(true);
    const tickets = results as Ticket[];
    const granted = new Map(tickets.map((t) => [t.call_id, t.granted_seconds]));
    // Each call gets its share of the 180 s: the 10 ports split it evenly.
    expect([...granted.values()]).toEqual(Array(10).fill(18));
    expect((await ledger.summary()).available_micros).toBe(0);

    // Three callers give up before an answer; seven calls are answered at once and talk until cut.
    const t0 = Date.now();
    const ids = tickets.map((t) => t.call_id);
    const [gaveUp, talking] = [ids.slice(0, 3), ids.slice(3)];
    await node.report(
      talking.map((id) => node.event(id, answered(t0))),
      ids,
      t0,
    );
    const live = new Set(talking);
    const heldSeconds = () => talking.reduce((sum, id) => sum + granted.get(id)!, 0);
    // Heartbeats every 5 s of talk, as the node sends them; a call is cut when talk reaches its grant.
    for (let t = 5; live.size > 0 && t < 600; t += 5) {
      const cut = [...live].filter((id) => granted.get(id)! <= t);
      cut.forEach((id) => live.delete(id));
      const events = cut.map((id) => node.event(id, ended(t0, t0 + granted.get(id)! * 1000, "credit_exhausted")));
      if (t === 5) events.push(...gaveUp.map((id) => node.event(id, ended(null, t0 + 3_000))));
      const answer = await node.report(events, [...live], t0 + t * 1000);
      for (const grant of answer.grants) {
        expect(grant.granted_seconds).toBeGreaterThanOrEqual(granted.get(grant.call_id)!);
        granted.set(grant.call_id, grant.granted_seconds);
      }
      const summary = await ledger.summary();
      expect(summary.balance_micros).toBeGreaterThanOrEqual(0);
      expect(summary.available_micros).toBeGreaterThanOrEqual(0);
      // What the talking calls were granted in all never exceeds what the balance bought.
      expect(heldSeconds() * MICROS_PER_SECOND).toBeLessThanOrEqual(36_000);
    }
    expect(live.size).toBe(0);

    const summary = await ledger.summary();
    expect(summary.ports_in_use).toBe(0);
    // Each talking call was charged its grant to the micro-dollar (200 micro-dollars a second, no rounding);
    // the callers who gave up nothing.
    for (const id of talking) {
      expect(await callEntries(ledger, id)).toEqual([expect.objectContaining({ amount_micros: -granted.get(id)! * MICROS_PER_SECOND })]);
    }
    for (const id of gaveUp) expect(await callEntries(ledger, id)).toEqual([]);
    const { items } = await ledger.listEntries(100, 0);
    const charged = -items.filter((e) => e.type === "call").reduce((sum, e) => sum + e.amount_micros, 0);
    expect(charged).toBe(heldSeconds() * MICROS_PER_SECOND);
    expect(summary.balance_micros).toBe(36_000 - charged);
    expect(items.every((e) => e.balance_after_micros >= 0)).toBe(true);
    // Shares are whole seconds split among the free ports (10 once the calls are gone): what is left
    // is less than one second for each port.
    expect(summary.balance_micros).toBeLessThan(10 * MICROS_PER_SECOND);
    // In this run: the seven calls talked 177 of the 180 s; 3 s (600 micro-dollars) could not be shared out.
    expect(heldSeconds()).toBe(177);
    expect(summary.balance_micros).toBe(600);
  });

  it("never grants the same included minute to two running calls", async () => {
    // One included minute, no money, two ports.
    const { ledger, customerId } = await fundedLedger(0, { ports: 2, includedMinutes: 1 });
    const node = sipNode(ledger, customerId);
    const [a, b] = [admitted(await node.admit()), admitted(await node.admit())];
    // The first takes its share (half of 60 s for two ports); the second what the first left.
    expect([a.granted_seconds, b.granted_seconds]).toEqual([30, 30]);
    const t0 = Date.now();
    const answer = await node.report(
      [node.event(a.call_id, answered(t0)), node.event(b.call_id, answered(t0))],
      [a.call_id, b.call_id],
      t0 + 10_000,
    );
    // 20 s left each, under half a slice, but nothing is left to grant.
    expect(answer.grants.map((g) => g.granted_seconds)).toEqual([30, 30]);
    await node.report([node.event(a.call_id, ended(t0, t0 + 30_000, "credit_exhausted")), node.event(b.call_id, ended(t0, t0 + 30_000))]);
    expect(await ledger.summary()).toMatchObject({ cycle_seconds_used: 60, balance_micros: 0, ports_in_use: 0 });
    // Both billed, from the included minute: an entry each, of nothing.
    for (const call of [a, b]) expect(await callEntries(ledger, call.call_id)).toEqual([expect.objectContaining({ amount_micros: 0 })]);
    expect(await node.admit()).toMatchObject({ decision: "reject", sip_code: 402, reason: "insufficient_credit" });
  });

  it("tops up a call with less than half a slice left, and only such a call", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId); // 60 s slices
    const [low, plenty, ringing] = [admitted(await node.admit()), admitted(await node.admit()), admitted(await node.admit())];
    const now = Date.now();
    const answer = await node.report(
      [node.event(low.call_id, answered(now - 40_000)), node.event(plenty.call_id, answered(now - 20_000))],
      [low.call_id, plenty.call_id, ringing.call_id],
      now,
    );
    const byCall = (a: typeof answer) => Object.fromEntries(a.grants.map((g) => [g.call_id, g.granted_seconds]));
    // 20 s left of 60: a second slice. 40 s left: none yet. Ringing: its slice waits for the answer.
    expect(byCall(answer)).toEqual({ [low.call_id]: 120, [plenty.call_id]: 60, [ringing.call_id]: 60 });
    expect(answer.ended).toEqual([]);
    expect((await ledger.summary()).available_micros).toBe(10_000_000 - 240 * MICROS_PER_SECOND);
    // The same heartbeat again: 80 s left, nothing more.
    expect(byCall(await node.report([], [low.call_id], now + 1_000))).toEqual({ [low.call_id]: 120 });
    // 25 s later the other call is under half a slice.
    expect(byCall(await node.report([], [plenty.call_id], now + 15_000))).toEqual({ [plenty.call_id]: 120 });
  });

  it("answers ended for a call the ledger does not carry: unknown, refused, or already ended", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000, { ports: 1 });
    const node = sipNode(ledger, customerId);
    const done = admitted(await node.admit());
    const refused = await node.admit();
    expect(refused).toMatchObject({ decision: "reject", reason: "no_free_port" });
    const refusedId = (refused as { call_id: string }).call_id;
    await node.report([node.event(done.call_id, ended(null, Date.now()))]);
    const stranger = crypto.randomUUID();
    const answer = await node.report([], [done.call_id, refusedId, stranger]);
    expect(answer.grants).toEqual([]);
    expect(answer.ended).toEqual(
      expect.arrayContaining([
        { call_id: done.call_id, reason: "ended" },
        { call_id: refusedId, reason: "no_free_port" },
        { call_id: stranger, reason: "unknown_call" },
      ]),
    );
    expect(answer.ended).toHaveLength(3);
  });
});
