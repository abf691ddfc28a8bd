// A test call on the node's side: the progress a SIP node reports (forward only, from the node
// that placed it) and the call's admission and charge through the account's ledger (origin test).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compactVerify, createLocalJWKSet } from "jose";
import { as, bodyOf, expectStatus, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { testServices } from "../fixtures/factory.ts";
import { callRow, node, NODE_ID } from "../fixtures/node-client.ts";
import {
  accountWithDefaultDestination,
  fakeNodesClosedAfterEach,
  placeTestCall,
  reportProgress,
  untilSent,
  untilStatus,
} from "../fixtures/test-call.ts";
import { syncAdmissionState } from "../../../worker/services/trunk/admission-state.ts";

const connect = fakeNodesClosedAfterEach();

describe("a node's progress reports", () => {
  it("moves the test call forward and never back", async () => {
    const { owner } = await accountWithDefaultDestination();
    await connect("tc-node-e");
    const body = await placeTestCall(owner, { number: "+14155550141" });
    await untilStatus(owner, body.id, "dialing");
    expect((await reportProgress(body.id, { status: "ringing", sip_code: 180, sip_reason: "Ringing" })).body).toEqual({
      status: "ringing",
    });
    expect((await reportProgress(body.id, { status: "answered", answered: true, sip_code: 200, sip_reason: "OK" })).status).toBe(200);
    // A late ringing changes nothing.
    expect((await reportProgress(body.id, { status: "ringing", sip_code: 183 })).body).toEqual({ status: "answered" });
    const answered = bodyOf(await owner.client.get(`/api/customer/test-calls/${body.id}`), 200);
    expect(answered).toMatchObject({ status: "answered", answered: true, sip_code: 200, sip_reason: "OK" });
    await reportProgress(body.id, { status: "done", talk_seconds: 30.4, ended_by: "platform" });
    // An end repeated, or another end after it, changes nothing.
    expect((await reportProgress(body.id, { status: "failed", sip_code: 500, error: "late" })).body).toEqual({ status: "done" });
    expect((await owner.client.get(`/api/customer/test-calls/${body.id}`)).body).toMatchObject({
      status: "done",
      answered: true,
      sip_code: 200,
      talk_seconds: 30.4,
      ended_by: "platform",
      error: null,
    });
  });

  it("records a failure with its SIP cause (486 busy)", async () => {
    const { owner } = await accountWithDefaultDestination();
    await connect("tc-node-f");
    const body = await placeTestCall(owner, { number: "+14155550142" });
    await untilStatus(owner, body.id, "dialing");
    await reportProgress(body.id, { status: "failed", answered: false, sip_code: 486, sip_reason: "Busy Here", ended_by: "callee" });
    expect((await owner.client.get(`/api/customer/test-calls/${body.id}`)).body).toMatchObject({
      status: "failed",
      answered: false,
      sip_code: 486,
      sip_reason: "Busy Here",
      talk_seconds: null,
    });
  });

  it("answers 404 for an unknown test call, 422 for a malformed report, 401 without the node token", async () => {
    expect((await reportProgress(crypto.randomUUID(), { status: "ringing" })).status).toBe(404);
    expect((await reportProgress("not-a-uuid", { status: "ringing" })).status).toBe(404);
    const { owner } = await accountWithDefaultDestination();
    const body = await placeTestCall(owner, { number: "+14155550143" });
    const bad = await reportProgress(body.id, { status: "queued" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "status"]);
    const anonymous = await as({}).post(`/internal/test-calls/${body.id}/progress`, {
      status: "ringing",
      node_id: NODE_ID,
      at: new Date().toISOString(),
    });
    expectStatus(anonymous, 401);
  });
});

describe("admission of a test call (origin test)", () => {
  it("admits it on its own destination, number and caller ID, links its record, and charges it through the ledger", async () => {
    const { owner } = await accountWithDefaultDestination();
    const route = await addDestination(owner, { host: "route.sbc.test", port: 5070, tech_prefix: "77#" });
    // Past its pilot, so its calls are charged.
    await env.DB.prepare("UPDATE customers SET pilot_ends_at = ? WHERE id = ?").bind("2020-01-01T00:00:00.000Z", owner.account.id).run();
    await syncAdmissionState(testServices(), owner.account.id);
    const fake = await connect("tc-node-g");
    const body = await placeTestCall(owner, { number: "+14155550151", destination_id: route.id, seconds: 20 });
    await untilSent(fake, (c) => c.type === "originate" && c.test_call_id === body.id);
    const admit = await node.admit({
      origin: "test",
      test_call_id: body.id,
      sip_call_id: body.sip_call_id,
      src_ip: "127.0.0.1",
      dialed: "ignored",
      ani: "ignored",
    });
    expect(admit.status).toBe(200);
    expect(admit.body).toMatchObject({
      decision: "admit",
      customer_id: owner.account.id,
      dialed: "77#+14155550151",
      ani: "+18005550100",
      route: "forced",
      destination: { id: route.id, host: "route.sbc.test", port: 5070 },
    });
    const callId = admit.body.call_id;
    // The INVITE says which account the platform places it for, signed with the published key.
    const keys = (await request("GET", "/api/public/call-signing-keys")).body;
    const signed = await compactVerify(admit.body.account_assertion, createLocalJWKSet(keys));
    expect(JSON.parse(new TextDecoder().decode(signed.payload))).toMatchObject({
      customer_id: owner.account.id,
      call_id: callId,
      origin: "test",
    });
    expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${body.id}`), 200).call_id).toBe(callId);
    expect(await callRow(callId)).toMatchObject({ origin: "test", sip_call_id: body.sip_call_id, customer_id: owner.account.id });

    const before = bodyOf(await owner.client.get("/api/customer/balance"), 200).balance;
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    await node.event(callId, { type: "answered", at: at(1_000) });
    const ended = await node.event(callId, { type: "ended", at: at(61_000), answered_at: at(1_000), sip_code: 200, hangup_by: "platform" });
    expect(ended.body).toMatchObject({ status: "completed", billsec: 60 });
    expect(ended.body!.charged_amount).toBeGreaterThan(0);
    const after = bodyOf(await owner.client.get("/api/customer/balance"), 200).balance;
    expect(after).toBeCloseTo(before - ended.body!.charged_amount, 6);
    const ledger = await owner.client.get("/api/customer/ledger");
    expectStatus(ledger, 200);
    expect(ledger.body.items.find((e) => e.call_id === callId)).toMatchObject({ type: "call" });
  });

  it("refuses a test call that was cancelled (487), or a Call-ID that is not the test call's (404): nothing rings, no call is recorded", async () => {
    const { owner } = await accountWithDefaultDestination();
    await connect("tc-node-l");
    const body = await placeTestCall(owner, { number: "+14155550152" });
    await untilStatus(owner, body.id, "dialing");
    const wrong = await node.admit({ origin: "test", test_call_id: body.id, sip_call_id: "other@x", src_ip: "127.0.0.1", dialed: "1" });
    expect(wrong.body).toEqual({ decision: "reject", sip_code: 404, reason: "test_call_not_found", call_id: null });
    await owner.client.post(`/api/customer/test-calls/${body.id}/cancel`);
    const late = await node.admit({
      origin: "test",
      test_call_id: body.id,
      sip_call_id: body.sip_call_id,
      src_ip: "127.0.0.1",
      dialed: "1",
    });
    expect(late.body).toEqual({ decision: "reject", sip_code: 487, reason: "test_call_cancelled", call_id: null });
    const unnamed = await node.admit({ origin: "test", src_ip: "127.0.0.1", dialed: "1" });
    expect(unnamed.body).toMatchObject({ decision: "reject", sip_code: 404 });
    const calls = await env.DB.prepare("SELECT id FROM calls WHERE customer_id = ?").bind(owner.account.id).all();
    expect(calls.results).toEqual([]);
    expect((await owner.client.get(`/api/customer/test-calls/${body.id}`)).body).toMatchObject({ status: "cancelled", call_id: null });
  });
});
