// The call ledger's node leases: a lost node's calls end as node_lost, charged to its last sign of
// life, and are charged again as they really ended when it reconnects.
import { describe, expect, it } from "vitest";
import type { CallLimits } from "../../../durable-objects/call-ledger/call-ledger.ts";
import {
  admitted,
  answered,
  callEntries,
  ended,
  eventually,
  fundedLedger,
  iso,
  MICROS_PER_SECOND,
  ONE_SLICE,
  sipNode,
  type LedgerStub,
  endedRow,
} from "../fixtures/ledger.ts";
import { callRow } from "../fixtures/node-client.ts";

/** A lease short enough to watch lapse: the node's calls end 200 ms after its last sign of life. */
const SHORT_LEASE: CallLimits = { ...ONE_SLICE, leaseMs: 200 };

const portsFreed = (ledger: LedgerStub) =>
  eventually(async () => (await ledger.summary()).ports_in_use === 0, 5_000, "the lost node's calls ended");

describe("leases", () => {
  it("ends a lost node's calls as node_lost when its lease lapses, charged to its last report, and frees the ports", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000, { ports: 3 });
    const node = sipNode(ledger, customerId, { limits: SHORT_LEASE });
    const [long, short, ringing] = [admitted(await node.admit()), admitted(await node.admit()), admitted(await node.admit())];
    expect(await node.admit()).toMatchObject({ decision: "reject", reason: "no_free_port" });
    // The node's last report: one call answered 90 s ago, one 30 s ago, one still ringing. Then it dies.
    const lastReport = Date.now();
    const events = [node.event(long.call_id, answered(lastReport - 90_000)), node.event(short.call_id, answered(lastReport - 30_000))];
    await node.report(events, [long.call_id, short.call_id, ringing.call_id], lastReport);
    expect((await ledger.summary()).ports_in_use).toBe(3);

    await portsFreed(ledger); // by the ledger's own alarm
    expect(Date.now()).toBeGreaterThanOrEqual(lastReport + SHORT_LEASE.leaseMs);
    expect(await ledger.liveCalls()).toEqual([]);
    expect(await callEntries(ledger, long.call_id)).toEqual([expect.objectContaining({ amount_micros: -90 * MICROS_PER_SECOND })]);
    // 30 s of talk is billed as the minimum, 60 s; the ringing call costs nothing.
    expect(await callEntries(ledger, short.call_id)).toEqual([expect.objectContaining({ amount_micros: -60 * MICROS_PER_SECOND })]);
    expect(await callEntries(ledger, ringing.call_id)).toEqual([]);
    expect(await ledger.summary()).toMatchObject({ balance_micros: 10_000_000 - 150 * MICROS_PER_SECOND, cycle_seconds_used: 150 });

    // The ports are free again: a call through another node is admitted.
    admitted(await sipNode(ledger, customerId, { nodeId: "node-b", limits: SHORT_LEASE }).admit());

    expect(await endedRow(long.call_id)).toMatchObject({
      status: "completed",
      end_reason: "node_lost",
      hangup_by: "platform",
      ended_at: iso(lastReport),
      answered_at: iso(lastReport - 90_000),
      billsec: 90,
      charged_micros: 18_000,
    });
    expect(await endedRow(ringing.call_id)).toMatchObject({ status: "failed", end_reason: "node_lost", billsec: 0, charged_micros: 0 });
  });

  it("keeps the calls of a node that renews its lease, and ends them at the last renewal once it stops", async () => {
    const limits = { ...ONE_SLICE, leaseMs: 1_000 };
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId, { limits });
    const call = admitted(await node.admit());
    const answeredAt = Date.now() - 100_000;
    await node.report([node.event(call.call_id, answered(answeredAt))], [call.call_id]);
    let lastRenewal = Date.now();
    // Heartbeats every 300 ms for 1.5 s: longer than the lease, never a gap as long as it.
    for (const stop = Date.now() + 1_500; Date.now() < stop;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      lastRenewal = Date.now();
      await node.report([], [call.call_id], lastRenewal);
    }
    expect(await ledger.liveCalls()).toEqual([expect.objectContaining({ callId: call.call_id, status: "active" })]);
    await portsFreed(ledger);
    expect(Date.now()).toBeGreaterThanOrEqual(lastRenewal + limits.leaseMs);
    const billsec = Math.ceil((lastRenewal - answeredAt) / 1000);
    expect(await callEntries(ledger, call.call_id)).toEqual([expect.objectContaining({ amount_micros: -billsec * MICROS_PER_SECOND })]);
    expect(await endedRow(call.call_id)).toMatchObject({ end_reason: "node_lost", ended_at: iso(lastRenewal), billsec });
  });

  it("ends the calls of a node's old boot at once when it comes back with a new boot id", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000, { ports: 1 });
    const first = sipNode(ledger, customerId, { bootId: "boot-1" });
    const call = admitted(await first.admit());
    const lastAlive = Date.now();
    await first.report([first.event(call.call_id, answered(lastAlive - 75_000))], [call.call_id], lastAlive);
    // Restarted (kill -9 and start): a new boot id. Its report ends what the old boot carried, no lease wait.
    const second = sipNode(ledger, customerId, { bootId: "boot-2" });
    await second.report([], [], lastAlive + 2_000);
    expect(await ledger.liveCalls()).toEqual([]);
    expect(await callEntries(ledger, call.call_id)).toEqual([expect.objectContaining({ amount_micros: -75 * MICROS_PER_SECOND })]);
    // The one port is free: the restarted node's first INVITE is admitted, not 503.
    const next = admitted(await second.admit());
    // And an admission under yet another boot frees the port that boot-2's call held.
    admitted(await sipNode(ledger, customerId, { bootId: "boot-3" }).admit());
    expect(await ledger.liveCalls()).toEqual([expect.objectContaining({ bootId: "boot-3" })]);
    expect(await endedRow(call.call_id)).toMatchObject({ end_reason: "node_lost", ended_at: iso(lastAlive), billsec: 75 });
    expect(await endedRow(next.call_id)).toMatchObject({ status: "failed", end_reason: "node_lost", charged_micros: 0 });
  });

  it("ends as node_lost a call its live node stops naming in heartbeats, once it is older than a lease", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000, { ports: 3 });
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE }); // 30 s leases
    const carried = admitted(await node.admit());
    // The ledger admitted these, but the node never got the first ticket (its request failed on the
    // way back) and dropped the second call's end (too large to send): it names neither any more.
    const neverTicketed = admitted(await node.admit());
    const endDropped = admitted(await node.admit());
    const t0 = Date.now();
    await node.report([node.event(carried.call_id, answered(t0)), node.event(endDropped.call_id, answered(t0))], [carried.call_id], t0);
    // Younger than a lease, a call may still have its ticket on the way: kept.
    expect((await ledger.summary()).ports_in_use).toBe(3);
    // A heartbeat 40 s later, still naming only the carried call.
    const heartbeat = t0 + 40_000;
    const answer = await node.report([], [carried.call_id], heartbeat);
    expect(answer.grants.map((g) => g.call_id)).toEqual([carried.call_id]);
    expect((await ledger.liveCalls()).map((c) => c.callId)).toEqual([carried.call_id]);
    expect((await ledger.summary()).ports_in_use).toBe(1);
    expect(await callEntries(ledger, neverTicketed.call_id)).toEqual([]);
    expect(await callEntries(ledger, endDropped.call_id)).toEqual([expect.objectContaining({ amount_micros: -60 * MICROS_PER_SECOND })]);
    expect(await endedRow(neverTicketed.call_id)).toMatchObject({ status: "failed", end_reason: "node_lost", ended_at: iso(heartbeat) });
    // The dropped end, sent again slimmed after all: charged as it really happened (75 s), once.
    await node.report([node.event(endDropped.call_id, ended(t0, t0 + 75_000))], [carried.call_id], heartbeat + 1_000);
    const entries = await callEntries(ledger, endDropped.call_id);
    expect(entries.reduce((sum, e) => sum + e.amount_micros, 0)).toBe(-75 * MICROS_PER_SECOND);
  });

  it("charges the journaled ends a restarted node reports under its new boot id as they really happened, once", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000, { ports: 2 });
    const before = sipNode(ledger, customerId, { bootId: "boot-1" });
    const [talked, rang] = [admitted(await before.admit()), admitted(await before.admit())];
    const lastAlive = Date.now();
    const answeredAt = lastAlive - 100_000;
    await before.report([before.event(talked.call_id, answered(answeredAt))], [talked.call_id, rang.call_id], lastAlive);
    // Both calls ended after that report; the node journaled their ends and was killed before sending them.
    const journal = [
      before.event(talked.call_id, ended(answeredAt, lastAlive + 1_000)),
      before.event(rang.call_id, ended(null, lastAlive + 1_500)),
    ];
    const after = sipNode(ledger, customerId, { bootId: "boot-2" });
    const first = () => after.report(journal, [], lastAlive + 5_000);
    await first();
    await first(); // the same report retried
    expect((await ledger.summary()).ports_in_use).toBe(0);
    const entries = await callEntries(ledger, talked.call_id);
    expect(entries.reduce((sum, e) => sum + e.amount_micros, 0)).toBe(-101 * MICROS_PER_SECOND);
    expect(await callEntries(ledger, rang.call_id)).toEqual([]);
    expect(await ledger.summary()).toMatchObject({ balance_micros: 10_000_000 - 101 * MICROS_PER_SECOND, cycle_seconds_used: 101 });
    admitted(await after.admit());
    const row = await eventually(async () => {
      const r = await callRow(talked.call_id);
      return r?.billsec === 101 && r;
    });
    expect(row).toMatchObject({ status: "completed", end_reason: null, ended_at: iso(lastAlive + 1_000), charged_micros: 20_200 });
    expect(await endedRow(rang.call_id)).toMatchObject({ status: "failed", charged_micros: 0 });
  });

  it("charges a cut-off node's call as it really ended when the node reconnects, exactly once", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId, { limits: SHORT_LEASE });
    const call = admitted(await node.admit());
    const lastReport = Date.now();
    const answeredAt = lastReport - 90_000;
    await node.report([node.event(call.call_id, answered(answeredAt))], [call.call_id], lastReport);
    // The link to the Worker is cut longer than the lease: the ledger ends the call as of the last report.
    await portsFreed(ledger);
    expect(await callEntries(ledger, call.call_id)).toEqual([expect.objectContaining({ amount_micros: -90 * MICROS_PER_SECOND })]);
    expect(await endedRow(call.call_id)).toMatchObject({ end_reason: "node_lost", charged_micros: 18_000 });

    // The link is back and the call still up on the node: the ledger tells the node to hang it up.
    expect(await node.report([], [call.call_id])).toEqual({ grants: [], ended: [{ call_id: call.call_id, reason: "node_lost" }] });
    // Its real end, 120 s of talk, reported once, then again at once and again later (retries of one batch).
    const realEnd = [node.event(call.call_id, ended(answeredAt, answeredAt + 120_000))];
    await node.report(realEnd);
    await Promise.all([node.report(realEnd), node.report(realEnd)]);
    await node.report(realEnd);
    const entries = await callEntries(ledger, call.call_id);
    expect(entries.reduce((sum, e) => sum + e.amount_micros, 0)).toBe(-120 * MICROS_PER_SECOND);
    expect(entries).toHaveLength(2); // the node_lost charge and one adjustment
    expect(await ledger.summary()).toMatchObject({
      balance_micros: 10_000_000 - 120 * MICROS_PER_SECOND,
      cycle_seconds_used: 120,
      ports_in_use: 0,
    });
    // A second end with a later seq (a confused node) changes nothing either.
    await node.report([node.event(call.call_id, ended(answeredAt, answeredAt + 300_000))]);
    expect(await callEntries(ledger, call.call_id)).toEqual(entries);

    // D1 shows the real end, not the ledger's guess.
    const row = await eventually(async () => {
      const r = await callRow(call.call_id);
      return r?.billsec === 120 && r;
    });
    expect(row).toMatchObject({
      status: "completed",
      end_reason: null,
      hangup_by: "caller",
      ended_at: iso(answeredAt + 120_000),
      charged_micros: 24_000,
    });
  });

  it("gives back the difference when the call really ended shorter than the node_lost end charged", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId, { limits: SHORT_LEASE });
    const call = admitted(await node.admit());
    const lastReport = Date.now();
    const answeredAt = lastReport - 200_000;
    await node.report([node.event(call.call_id, answered(answeredAt))], [call.call_id], lastReport);
    await portsFreed(ledger);
    // The node's clock put the hangup 50 s before its last report reached us (the end was not yet sent).
    await node.report([node.event(call.call_id, ended(answeredAt, answeredAt + 150_000, "media_timeout"))]);
    const entries = await callEntries(ledger, call.call_id);
    expect(entries.map((e) => e.amount_micros).sort((a, b) => a - b)).toEqual([-200 * MICROS_PER_SECOND, 50 * MICROS_PER_SECOND]);
    expect(await ledger.summary()).toMatchObject({ balance_micros: 10_000_000 - 150 * MICROS_PER_SECOND, cycle_seconds_used: 150 });
  });
});
