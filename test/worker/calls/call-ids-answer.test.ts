// A call id the API hands out answers at once (issue 27, item 1). A test call's `call_id` appears
// as the call is admitted, while its record is still on its way to D1 (the ledger's outbox, the
// call-records queue, seconds later under load). The race is made certain here: the ledgers'
// outboxes are held back, so D1 gets nothing from the queue while a test runs, and every read and
// write that names the call must take it from the ledger.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AccountLedger } from "../../../durable-objects/account-ledger.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { apiKeyOf, callFails, callOk, mcpClient } from "../fixtures/mcp-client.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { BOOT_ID, callRow, node, NODE_ID } from "../fixtures/node-client.ts";
import { admitted, answered, ended, eventually, fundedLedger, ONE_SLICE, sipNode } from "../fixtures/ledger.ts";
import { fakeNodesClosedAfterEach, untilSent } from "../fixtures/test-call.ts";
import { bodyOf, expectStatus } from "../fixtures/client.ts";

const connect = fakeNodesClosedAfterEach();

afterEach(() => {
  vi.restoreAllMocks();
});

/** The ledgers send nothing to the call-records queue (each flush "fails" and is tried again a second later). */
function holdRecords() {
  vi.spyOn(AccountLedger.prototype as unknown as { flush(): Promise<boolean> }, "flush").mockResolvedValue(false);
}

/** Lets the ledgers' outboxes go to the queue again: D1 then gets what was held. */
const releaseRecords = () => vi.restoreAllMocks();

const t0 = Date.now();
const at = (ms: number) => new Date(t0 + ms).toISOString();

/** One event of a call, reported to its ledger as the node does (no wait for D1). */
async function report(call: { callId: string; customerId: string }, seq: number, event: Record<string, unknown>) {
  const res = await node.report({ events: [{ call_id: call.callId, customer_id: call.customerId, seq, event }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A test call's progress, as the node that placed it posts it. */
async function progress(testCallId: string, body: Record<string, unknown>) {
  const res = await node.post(`/test-calls/${testCallId}/progress`, { node_id: NODE_ID, at: new Date().toISOString(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/**
 * A test call admitted through the account's ledger and answered, its progress posted, with the
 * call-records queue held: the ledger knows the call, D1 does not.
 */
async function answeredTestCall(owner: Session, nodeName: string) {
  await addDestination(owner, { is_default: true, host: "default.sbc.test" });
  const fake = await connect(nodeName);
  const created = bodyOf(await owner.client.post("/api/customer/test-calls", { number: "+14155550161", seconds: 20 }), 202);
  await untilSent(fake, (c) => c.type === "originate" && c.test_call_id === created.id);
  holdRecords();
  const admit = await node.post("/calls/admit", {
    node_id: NODE_ID,
    boot_id: BOOT_ID,
    origin: "test",
    test_call_id: created.id,
    sip_call_id: created.sip_call_id,
    src_ip: "127.0.0.1",
    dialed: "ignored",
    ani: "ignored",
  });
  expect(admit.body, JSON.stringify(admit.body)).toMatchObject({ decision: "admit", customer_id: owner.account.id });
  const call = { callId: admit.body.call_id as string, customerId: owner.account.id as string };
  await report(call, 1, { type: "answered", at: at(1_000), codec: "PCMA" });
  await progress(created.id, { status: "answered", call_id: call.callId, answered: true, sip_code: 200 });
  return { testCallId: created.id, sipCallId: created.sip_call_id, ...call };
}

describe("a call the ledger holds and D1 does not have yet", () => {
  it("reads, shares and cases a test call's call_id the moment it appears", async () => {
    const owner = await createAccount();
    const { testCallId, callId, sipCallId } = await answeredTestCall(owner, "ids-node-a");
    const testCall = (await owner.client.get(`/api/customer/test-calls/${testCallId}`)).body;
    expect(testCall).toMatchObject({ status: "answered", call_id: callId });
    // The race is on: the record is not in D1.
    expect(await callRow(callId)).toBeNull();

    const read = await owner.client.get(`/api/calls/${callId}`);
    expectStatus(read, 200);
    expect(read.body).toMatchObject({
      id: callId,
      customer_id: owner.account.id,
      origin: "test",
      sip_call_id: sipCallId,
      status: "active",
      answered_at: at(1_000),
      ended_at: null,
      dialed: "+14155550161",
      ani: "+18005550100",
      dest_host: "default.sbc.test",
      analysis: null,
      case_id: null,
      transcript: null,
    });

    const share = await owner.client.post(`/api/calls/${callId}/share`, {});
    expectStatus(share, 201);
    expect(share.body).toMatchObject({ call_id: callId, active: true });

    const prefill = await owner.client.get(`/api/cases/prefill?call_id=${callId}`);
    expectStatus(prefill, 200);
    expect(prefill.body).toMatchObject({ title: "Call from +18005550100", existing_case_id: null });

    const opened = await owner.client.post("/api/cases", { title: "Test call", call_id: callId });
    expectStatus(opened, 201);
    expect(opened.body).toMatchObject({ call_id: callId });
    expect(bodyOf(await owner.client.get(`/api/cases/prefill?call_id=${callId}`), 200).existing_case_id).toBe(opened.body.id);

    // Analysis on demand finds the call and says why it cannot run yet (nothing recorded), never 404.
    const analyse = await owner.client.post(`/api/calls/${callId}/analyze`, {});
    expectStatus(analyse, 409);

    const inspect = await owner.client.get(`/api/calls/${callId}/inspect`);
    expectStatus(inspect, 200);
    expect(inspect.body).toMatchObject({ live: true, call: { id: callId, status: "active" } });

    // The MCP tools read the same.
    const mcp = await mcpClient({ apiKey: await apiKeyOf(owner) });
    expect(await callOk(mcp, "get_call", { call_id: callId })).toMatchObject({ id: callId, status: "active", case_id: opened.body.id });

    // The queue then delivers what was held: it adds what only the node's answer carried (the
    // codec; the ledger keeps the answer's time) and changes nothing the API showed.
    releaseRecords();
    const later = await eventually(
      async () => {
        const res = await owner.client.get(`/api/calls/${callId}`);
        expectStatus(res, 200);
        return res.body.codec === "PCMA" ? res.body : null;
      },
      8_000,
      "the queue delivering the held records",
    );
    expect(later).toEqual({ ...read.body, codec: "PCMA", case_id: opened.body.id });
  });

  it("answers 404 to another account for each of those verbs", async () => {
    const owner = await createAccount();
    const { callId } = await answeredTestCall(owner, "ids-node-b");
    const other = await createAccount();
    const read = await other.client.get(`/api/calls/${callId}`);
    expectStatus(read, 404);
    expect(read.body).toEqual({ detail: "Call not found" });
    expect((await other.client.post(`/api/calls/${callId}/share`, {})).status).toBe(404);
    expect((await other.client.get(`/api/cases/prefill?call_id=${callId}`)).status).toBe(404);
    expect((await other.client.post("/api/cases", { title: "Not mine", call_id: callId })).status).toBe(404);
    expect((await other.client.post(`/api/calls/${callId}/analyze`, {})).status).toBe(404);
    const mcp = await mcpClient({ apiKey: await apiKeyOf(other) });
    expect(await callFails(mcp, "get_call", { call_id: callId })).toMatch(/404\): Call not found/);
    // Nor did the other account's asking put the call in D1 under anyone.
    expect(await callRow(callId)).toBeNull();
    // An id no ledger knows is 404 as before.
    expect((await owner.client.get(`/api/calls/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("shows a test call done only once GET /calls/{call_id} shows its call ended", async () => {
    const owner = await createAccount();
    const { testCallId, callId, customerId } = await answeredTestCall(owner, "ids-node-c");
    // The node posts done before its batched report of the call's end reaches the ledger.
    expect(await progress(testCallId, { status: "done", talk_seconds: 20, ended_by: "platform" })).toEqual({ status: "done" });
    expect((await owner.client.get(`/api/customer/test-calls/${testCallId}`)).body).toMatchObject({ status: "answered", call_id: callId });
    expect(bodyOf(await owner.client.get("/api/customer/test-calls"), 200)[0]).toMatchObject({ id: testCallId, status: "answered" });
    expect((await owner.client.get(`/api/calls/${callId}`)).body).toMatchObject({ status: "active", ended_at: null });

    // The end reaches the ledger; D1 still has nothing from the queue.
    await report({ callId, customerId }, 2, {
      type: "ended",
      at: at(21_000),
      answered_at: at(1_000),
      sip_code: 200,
      hangup_by: "platform",
    });
    const done = (await owner.client.get(`/api/customer/test-calls/${testCallId}`)).body;
    expect(done).toMatchObject({ status: "done", call_id: callId, talk_seconds: 20 });
    const call = (await owner.client.get(`/api/calls/${callId}`)).body;
    expect(call).toMatchObject({ status: "completed", ended_at: at(21_000), billsec: 60, hangup_by: "platform", sip_code: 200 });

    const mcp = await mcpClient({ apiKey: await apiKeyOf(owner) });
    expect(await callOk(mcp, "get_test_call", { test_call_id: testCallId })).toMatchObject({ status: "done" });
    expect(await callOk(mcp, "get_call", { call_id: callId })).toMatchObject({ status: "completed", ended_at: at(21_000) });
  });

  it("reads a call as its ledger ended it when D1 still shows it up", async () => {
    const owner = await createAccount();
    const { callId, customerId } = await answeredTestCall(owner, "ids-node-d");
    // D1 gets the record and the answer (the first read brings them), then the end stays with the ledger.
    expect((await owner.client.get(`/api/calls/${callId}`)).body).toMatchObject({ status: "active" });
    expect(await callRow(callId)).toMatchObject({ status: "active" });
    await report({ callId, customerId }, 2, { type: "ended", at: at(31_000), answered_at: at(1_000), sip_code: 200, hangup_by: "callee" });
    const read = await owner.client.get(`/api/calls/${callId}`);
    expect(read.body).toMatchObject({ status: "completed", ended_at: at(31_000), billsec: 60, hangup_by: "callee" });
  });

  it("reads a refused call's id at once", async () => {
    const owner = await createAccount();
    const block = v4Block();
    await addWhitelistEntry(owner, block.cidr, { label: "Acme" });
    holdRecords();
    // No destination: refused 404 no_route, recorded all the same.
    const refused = await node.post("/calls/admit", {
      node_id: NODE_ID,
      boot_id: BOOT_ID,
      sip_call_id: `${crypto.randomUUID()}@carrier.test`,
      src_ip: `${block.base}.5`,
      dialed: "14155550123",
      ani: "+442079460000",
    });
    expect(refused.body).toMatchObject({ decision: "reject", sip_code: 404, reason: "no_route" });
    const callId = refused.body.call_id as string;
    expect(await callRow(callId)).toBeNull();
    const read = await owner.client.get(`/api/calls/${callId}`);
    expectStatus(read, 200);
    expect(read.body).toMatchObject({ id: callId, status: "rejected", sip_code: 404, end_reason: "no_route", ani: "+442079460000" });
  });
});

describe("the ledger's copy of a call (AccountLedger.callCopy)", () => {
  it("is the record and its answer while the call is up, then its record and end (no ladder), forgotten after a while", async () => {
    const { ledger, customerId } = await fundedLedger(10_000_000);
    holdRecords();
    const sip = sipNode(ledger, customerId, { limits: ONE_SLICE });
    const call = admitted(await sip.admit());
    const ringing = await ledger.callCopy(call.call_id);
    expect(ringing).toMatchObject({ state: "ringing", messages: [{ type: "record", record: { id: call.call_id, status: "ringing" } }] });
    expect(ringing!.messages).toHaveLength(1);

    const t0 = Date.now();
    await sip.report([sip.event(call.call_id, answered(t0))]);
    expect(await ledger.callCopy(call.call_id)).toMatchObject({
      state: "active",
      messages: [{ type: "record" }, { type: "event", call_id: call.call_id, event: { type: "answered", at: new Date(t0).toISOString() } }],
    });

    const ladder = [{ time_stamp: "0", direction: "in", method: "BYE", fromip: "a", toip: "b", first_line: "BYE sip:x SIP/2.0" }];
    await sip.report([sip.event(call.call_id, { ...ended(t0, t0 + 90_000), ladder } as never)]);
    const copy = await ledger.callCopy(call.call_id);
    expect(copy).toMatchObject({
      state: "ended",
      messages: [
        { type: "record", record: { id: call.call_id } },
        { type: "event", event: { type: "ended", sip_code: 200 }, charge: { billsec: 90, charged_micros: 90 * 200 } },
      ],
    });
    expect(JSON.stringify(copy)).not.toContain("ladder");
    expect(await ledger.callCopy(crypto.randomUUID())).toBeNull();

    // Past ENDED_RECORDS_KEEP_MS, the alarm forgets it (D1 has had it long since).
    await runInDurableObject(ledger, (_, state) => state.storage.sql.exec("UPDATE ended_records SET ended_ms = 0"));
    await runDurableObjectAlarm(ledger);
    expect(await ledger.callCopy(call.call_id)).toBeNull();
  });
});
