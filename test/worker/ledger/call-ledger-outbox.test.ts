// The call ledger's outbox: call records and their ends reach D1 through the call-records queue, once.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newCallRecord } from "../../../durable-objects/call-ledger/admission.ts";
import type { CallRecordMessage } from "../../../durable-objects/call-ledger/call-ledger.ts";
import type { CallEvent } from "../../../schema/node-api.ts";
import { writeCallRecords } from "../../../worker/services/calls/record-writer.ts";
import { testServices } from "../fixtures/factory.ts";
import {
  admissionState,
  admitted,
  answered,
  ended,
  fundedLedger,
  iso,
  ONE_SLICE,
  sipNode,
  SOURCE_IP,
  endedRow,
} from "../fixtures/ledger.ts";
import { callRow } from "../fixtures/node-client.ts";

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
