// The call ledger of issue 12 at the Durable Object level: nodes hold leases (a lost node's calls
// end as node_lost, charged to its last sign of life, and are charged again as they really ended
// when it reconnects), credit is held in slices shared by concurrent calls and topped up by the
// node's reports, and call records reach D1 through the outbox and the call-records queue.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newCallRecord } from "../../../durable-objects/call-ledger/admission.ts";
import type { CallLimits, CallRecordMessage } from "../../../durable-objects/call-ledger/call-ledger.ts";
import type { CallEvent } from "../../../schema/node-api.ts";
import { writeCallRecords } from "../../../worker/services/calls/record-writer.ts";
import { testServices } from "../fixtures/factory.ts";
import {
  admissionState,
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
  SOURCE_IP,
  type LedgerStub,
  type Ticket,
} from "../fixtures/ledger.ts";
import { callRow } from "../fixtures/node-client.ts";

/** A lease short enough to watch lapse: the node's calls end 200 ms after its last sign of life. */
const SHORT_LEASE: CallLimits = { ...ONE_SLICE, leaseMs: 200 };

const portsFreed = (ledger: LedgerStub) =>
  eventually(async () => (await ledger.summary()).ports_in_use === 0, 5_000, "the lost node's calls ended");

/** The call's row in D1 once it shows an end. */
const endedRow = (callId: string, timeoutMs = 5_000) =>
  eventually(
    async () => {
      const row = await callRow(callId);
      return row && row.ended_at !== null && row;
    },
    timeoutMs,
    `call ${callId} ended in D1`,
  );

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

describe("the outbox", () => {
  it("brings an admitted call's record and its end to D1 within 2 s, through the call-records queue", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    const node = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const call = admitted(await node.admit());
    const t0 = Date.now();
    await node.report([
      node.event(call.call_id, answered(t0 - 125_000)),
      node.event(call.call_id, { ...ended(t0 - 125_000, t0), ladder: ladder(2) }),
    ]);
    const row = await endedRow(call.call_id, 2_000);
    expect(row).toMatchObject({
      customer_id: customerId,
      status: "completed",
      src_ip: SOURCE_IP,
      dest_host: "default.sbc.test",
      node_id: "node-a",
      answered_at: iso(t0 - 125_000),
      ended_at: iso(t0),
      billsec: 125,
      charged_micros: 25_000,
      sip_code: 200,
    });
    expect(await ladderRows(call.call_id)).toBe(2);
  });

  it("brings a refused call's record to D1 with its SIP code", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000, { ports: 1 });
    const node = sipNode(ledger, customerId);
    admitted(await node.admit());
    const refused = await node.admit();
    expect(refused).toMatchObject({ decision: "reject", sip_code: 503 });
    const row = await endedRow((refused as { call_id: string }).call_id, 2_000);
    expect(row).toMatchObject({ customer_id: customerId, status: "rejected", sip_code: 503, end_reason: "no_free_port" });
  });

  it("writes nothing twice when the queue delivers the same messages again", async () => {
    const { messages, callId } = callMessages();
    const services = testServices();
    expect(await writeCallRecords(services, messages)).toEqual(["written", "written", "written"]);
    const first = await callRow(callId);
    expect(await writeCallRecords(services, messages)).toEqual(["written", "written", "written"]);
    expect(await callRow(callId)).toEqual(first);
    expect(first).toMatchObject({ status: "completed", billsec: 61, charged_micros: 12_200 });
    expect(await ladderRows(callId)).toBe(3);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM calls WHERE id = ?").bind(callId).first<{ n: number }>();
    expect(count?.n).toBe(1);
    // A late "answered" does not reopen the ended call.
    await writeCallRecords(services, [messages[1]!]);
    expect(await callRow(callId)).toEqual(first);
  });

  it("replaces a node_lost end by the real one once, whatever order and how often they come", async () => {
    const { messages, callId, customerId, answeredAt } = callMessages();
    const nodeLost: CallRecordMessage = {
      type: "event",
      call_id: callId,
      customer_id: customerId,
      event: {
        type: "ended",
        at: iso(answeredAt + 90_000),
        answered_at: iso(answeredAt),
        sip_code: 200,
        hangup_by: "platform",
        end_reason: "node_lost",
      },
      charge: { billsec: 90, charged_micros: 18_000 },
    };
    const real: CallRecordMessage = {
      type: "event",
      call_id: callId,
      customer_id: customerId,
      event: { ...ended(answeredAt, answeredAt + 120_000), ladder: ladder(2) },
      charge: { billsec: 120, charged_micros: 24_000 },
      supersede: true,
    };
    const services = testServices();
    await writeCallRecords(services, [messages[0]!, nodeLost]);
    expect(await callRow(callId)).toMatchObject({ end_reason: "node_lost", billsec: 90 });
    await writeCallRecords(services, [real]);
    const replaced = await callRow(callId);
    expect(replaced).toMatchObject({ status: "completed", end_reason: null, billsec: 120, charged_micros: 24_000, hangup_by: "caller" });
    // Redelivered, in the first order and the other.
    await writeCallRecords(services, [messages[0]!, nodeLost, real]);
    await writeCallRecords(services, [real, nodeLost]);
    expect(await callRow(callId)).toEqual(replaced);
    expect(await ladderRows(callId)).toBe(2);
  });

  it("retries an event whose call's record is not in D1 yet, writing nothing", async () => {
    const { messages, callId } = callMessages();
    expect(await writeCallRecords(testServices(), [messages[2]!])).toEqual(["retry"]);
    expect(await callRow(callId)).toBeNull();
  });
});

/** A SIP ladder of `n` messages, as the node attaches it to a call's end. */
function ladder(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    time_stamp: iso(Date.now() + i),
    direction: "in" as const,
    method: i === 0 ? "INVITE" : "BYE",
    fromip: SOURCE_IP,
    toip: "203.0.113.1",
    first_line: i === 0 ? "INVITE sip:14155550123@203.0.113.1 SIP/2.0" : "BYE sip:14155550123@203.0.113.1 SIP/2.0",
  }));
}

const ladderRows = async (callId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM call_sip_messages WHERE call_id = ?").bind(callId).first<{ n: number }>())?.n;

/** What a ledger sends for one call: its record at admission, its answer, its end with a charge and a ladder. */
function callMessages() {
  const state = admissionState();
  const customerId = state.account.id;
  const callId = crypto.randomUUID();
  const answeredAt = Date.now() - 61_000;
  const request = {
    node_id: "node-a",
    boot_id: "boot-1",
    sip_call_id: `${callId}@carrier.test`,
    src_ip: SOURCE_IP,
    ani: "+14155550100",
    dialed: "14155550123",
    origin: "sip" as const,
  };
  const record = { ...newCallRecord(callId, request, state.account, state.entries[0]!, iso(answeredAt - 2_000)), status: "ringing" };
  const event = (e: CallEvent, charge: { billsec: number; charged_micros: number } | null = null): CallRecordMessage => ({
    type: "event",
    call_id: callId,
    customer_id: customerId,
    event: e,
    charge,
  });
  const messages: CallRecordMessage[] = [
    { type: "record", record },
    event(answered(answeredAt)),
    event({ ...ended(answeredAt, answeredAt + 61_000), ladder: ladder(3) }, { billsec: 61, charged_micros: 12_200 }),
  ];
  return { messages, callId, customerId, answeredAt };
}
