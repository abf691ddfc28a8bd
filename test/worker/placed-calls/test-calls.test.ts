// Test calls: every operation, state row, default and error of the spec's "Test calls", and the
// originate and cancel commands a SIP node gets through the NodeHub (the node's progress reports
// and the call's admission: test-call-nodes.test.ts).
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { as, bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, principalOf, testServices, type Session } from "../fixtures/factory.ts";
import { node } from "../fixtures/node-client.ts";
import {
  accountWithDefaultDestination,
  fakeNodesClosedAfterEach,
  placeTestCall,
  reportProgress,
  uniqueNumber,
  untilSent,
  untilStatus,
  verifyNumber,
} from "../fixtures/test-call.ts";
import { CreateTestCallSchema } from "../../../worker/resources/test-calls.ts";
import { createTestCall, sweepTestCalls } from "../../../worker/services/placed-calls/test-calls.ts";
import type { Principal } from "../../../worker/services/identity/principal.ts";

const connect = fakeNodesClosedAfterEach();

const testCallRows = async (customerId: string) =>
  (await env.DB.prepare("SELECT * FROM test_calls WHERE customer_id = ?").bind(customerId).all<Record<string, any>>()).results;

/** The owner's principal as an AI agent's OAuth token would resolve it. */
async function connectorOf(owner: Session): Promise<Principal> {
  const principal = await principalOf(owner);
  return {
    ...principal,
    via: "connector",
    connector: { clientId: "mcp-client", clientName: "Agent", grantId: "grant-1", scopes: ["calls"] },
  };
}

/** A test call asked for by an AI agent (the MCP tool calls the same service verb). */
const askAsAgent = async (owner: Session, body: Record<string, unknown>) =>
  createTestCall(testServices(), await connectorOf(owner), CreateTestCallSchema.parse(body));

describe("POST /api/customer/test-calls", () => {
  // First in the file: no fake node of an earlier test can still be on the hub.
  it("fails naming no_sip_node when no SIP node is connected", async () => {
    const { owner } = await accountWithDefaultDestination();
    const res = await owner.client.post("/api/customer/test-calls", { number: "+14155550124" });
    expectStatus(res, 202);
    expect(await untilStatus(owner, res.body.id, "failed")).toMatchObject({ error: "no_sip_node" });
  });

  it("answers 202 queued with the defaults, sends originate through a node and moves to dialing", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const fake = await connect("tc-node-a");
    const res = await owner.client.post("/api/customer/test-calls", { number: "+1 (415) 555-0123".replace(/[ ()-]/g, "") });
    expectStatus(res, 202);
    expect(res.body).toMatchObject({
      status: "queued",
      number: "+14155550123",
      caller_id: null,
      destination_id: destination.id,
      seconds: 30,
      speech: "route_test",
      purpose: "test",
      call_id: null,
      answered: null,
      sip_code: null,
      confirm_url: null,
    });
    const originate = await untilSent(fake, (c) => c.type === "originate");
    expect(originate).toEqual({
      type: "originate",
      test_call_id: res.body.id,
      sip_call_id: res.body.sip_call_id,
      number: "+14155550123",
      caller_id: "+18005550100",
      seconds: 30,
      speech: "route_test",
      ring_timeout_seconds: 45,
    });
    const dialing = await untilStatus(owner, res.body.id, "dialing");
    expect(dialing.error).toBeNull();
  });

  it("fails naming node_timeout when the node does not take it within 5 s", async () => {
    const { owner } = await accountWithDefaultDestination();
    await connect("tc-node-silent", () => null);
    const res = await owner.client.post("/api/customer/test-calls", { number: "+14155550125" });
    expectStatus(res, 202);
    expect(await untilStatus(owner, res.body.id, "failed")).toMatchObject({ error: "node_timeout" });
  }, 20_000);

  it("goes out through the destination named, with a verified caller ID, the scam sample and its seconds", async () => {
    const { owner } = await accountWithDefaultDestination();
    const other = await addDestination(owner, { host: "other.sbc.test" });
    const fake = await connect("tc-node-b");
    const [callerId, callee] = [uniqueNumber(), uniqueNumber()];
    await verifyNumber(owner, fake, callerId);
    await verifyNumber(owner, fake, callee);
    const res = await owner.client.post("/api/customer/test-calls", {
      number: callee,
      destination_id: other.id,
      caller_id: callerId,
      seconds: 12,
      speech: "scam_sample",
    });
    expectStatus(res, 202);
    expect(res.body).toMatchObject({ destination_id: other.id, caller_id: callerId, seconds: 12, speech: "scam_sample" });
    const originate = await untilSent(fake, (c) => c.type === "originate" && c.test_call_id === res.body.id);
    expect(originate).toMatchObject({ caller_id: callerId, number: callee, seconds: 12, speech: "scam_sample" });
  });

  it("answers 403 test_calls_disabled when the account's switch is off, storing nothing", async () => {
    const { owner } = await accountWithDefaultDestination();
    await env.DB.prepare("UPDATE customers SET test_calls_enabled = 0 WHERE id = ?").bind(owner.account.id).run();
    const res = await owner.client.post("/api/customer/test-calls", { number: "+14155550126" });
    expectStatus(res, 403);
    expect(res.body).toEqual({ detail: "test_calls_disabled" });
    expect(await testCallRows(owner.account.id)).toEqual([]);
  });

  it("answers 409 when the account has no destination, or none is its default", async () => {
    const owner = await createAccount();
    const none = await owner.client.post("/api/customer/test-calls", { number: "+14155550127" });
    expectStatus(none, 409);
    expect(none.body).toEqual({ detail: "Add a destination before placing a test call" });
    await addDestination(owner, { is_default: false });
    expect((await owner.client.post("/api/customer/test-calls", { number: "+14155550127" })).status).toBe(409);
    expect(await testCallRows(owner.account.id)).toEqual([]);
  });

  it("answers 404 for a destination or voice agent that is not the account's, or an agent that is not voice_ai", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const stranger = await accountWithDefaultDestination();
    const foreignAgent = await addDestination(stranger.owner, { kind: "voice_ai", provider: "vapi", agent_id: "a1" });
    const fake = await connect("tc-node-c");
    const number = uniqueNumber();
    await verifyNumber(owner, fake, number);
    const foreignRoute = await owner.client.post("/api/customer/test-calls", { number, destination_id: stranger.destination.id });
    expectStatus(foreignRoute, 404);
    for (const agent of [foreignAgent.id, destination.id, crypto.randomUUID()]) {
      const res = await owner.client.post("/api/customer/test-calls", {
        number,
        agent_destination_id: agent,
        instruction: "Ask for a PIN",
      });
      expectStatus(res, 404, agent);
      expect(res.body).toEqual({ detail: "Voice agent destination not found" });
    }
    expect((await testCallRows(owner.account.id)).filter((r) => r.purpose === "test")).toEqual([]);
  });

  it("connects a verified number to the account's voice agent with its instruction", async () => {
    const { owner } = await accountWithDefaultDestination();
    const agent = await addDestination(owner, { kind: "voice_ai", provider: "vapi", agent_id: "a2" });
    const fake = await connect("tc-node-d");
    const number = uniqueNumber();
    await verifyNumber(owner, fake, number);
    const res = await owner.client.post("/api/customer/test-calls", {
      number,
      agent_destination_id: agent.id,
      instruction: "Ask for a PIN",
    });
    expectStatus(res, 202);
    const originate = await untilSent(fake, (c) => c.type === "originate" && c.test_call_id === res.body.id);
    expect(originate).toMatchObject({ agent_destination_id: agent.id, instruction: "Ask for a PIN" });
    // The ticket names the agent the answered number is bridged to, beside the route to the number.
    const admitted = await node.admit({
      origin: "test",
      test_call_id: res.body.id,
      sip_call_id: res.body.sip_call_id,
      src_ip: "127.0.0.1",
      dialed: number,
    });
    expect(admitted.body).toMatchObject({
      decision: "admit",
      destination: { id: res.body.destination_id },
      agent_destination: { id: agent.id, kind: "voice_ai", provider: "vapi", agent_id: "a2", host: agent.host },
    });
    // An agent deleted before the node admits the call: refused, nothing reserved.
    const again = await owner.client.post("/api/customer/test-calls", { number, agent_destination_id: agent.id });
    expectStatus(again, 202);
    await untilSent(fake, (c) => c.type === "originate" && c.test_call_id === again.body.id);
    expect((await owner.client.delete(`/api/customer/destinations/${agent.id}`)).status).toBe(204);
    const refused = await node.admit({
      origin: "test",
      test_call_id: again.body.id,
      sip_call_id: again.body.sip_call_id,
      src_ip: "127.0.0.1",
      dialed: number,
    });
    expect(refused.body).toEqual({ decision: "reject", sip_code: 404, reason: "agent_destination_not_found", call_id: null });
  });

  it("answers 422 caller_id_not_verified and number_not_verified, storing nothing", async () => {
    const { owner } = await accountWithDefaultDestination();
    const agent = await addDestination(owner, { kind: "voice_ai", provider: "vapi", agent_id: "a3" });
    const caller = await owner.client.post("/api/customer/test-calls", { number: "+14155550128", caller_id: "+14155550999" });
    expectStatus(caller, 422);
    expect(caller.body.detail[0]).toMatchObject({ loc: ["body", "caller_id"], msg: "caller_id_not_verified" });
    for (const body of [
      { number: "+14155550128", speech: "scam_sample" },
      { number: "+14155550128", agent_destination_id: agent.id },
    ]) {
      const res = await owner.client.post("/api/customer/test-calls", body);
      expectStatus(res, 422, JSON.stringify(body));
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "number"], msg: "number_not_verified" });
    }
    expect(await testCallRows(owner.account.id)).toEqual([]);
  });

  it("answers 429 past 30 test calls an account per hour, storing nothing", async () => {
    const { owner } = await accountWithDefaultDestination();
    const services = testServices();
    expect(services.config.TEST_CALLS_PER_HOUR).toBe(30);
    // The hour's first 29, counted as the requests would count them.
    for (let i = 0; i < 29; i++) await services.limiter(`test-calls:${owner.account.id}`).hit(services.config.TEST_CALLS_PER_HOUR, 3600);
    expect((await owner.client.post("/api/customer/test-calls", { number: "+14155550129" })).status).toBe(202);
    const refused = await owner.client.post("/api/customer/test-calls", { number: "+14155550129" });
    expectStatus(refused, 429);
    expect(refused.body).toEqual({ detail: "too_many_test_calls" });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await testCallRows(owner.account.id)).toHaveLength(1);
  });

  it("answers 422 naming the field for bad input, storing nothing", async () => {
    const { owner } = await accountWithDefaultDestination();
    const cases: [Record<string, unknown>, string][] = [
      [{}, "number"],
      [{ number: "1" }, "number"],
      [{ number: "+1415-555-0100" }, "number"],
      [{ number: `+${"1".repeat(33)}` }, "number"],
      [{ number: "+14155550100", seconds: 0 }, "seconds"],
      [{ number: "+14155550100", seconds: 601 }, "seconds"],
      [{ number: "+14155550100", seconds: 2.5 }, "seconds"],
      [{ number: "+14155550100", speech: "verification_code" }, "speech"],
      [{ number: "+14155550100", destination_id: "nope" }, "destination_id"],
      [{ number: "+14155550100", caller_id: "abc" }, "caller_id"],
      [{ number: "+14155550100", instruction: "Ask for a PIN" }, "instruction"],
    ];
    for (const [body, field] of cases) {
      const res = await owner.client.post("/api/customer/test-calls", body);
      expectStatus(res, 422, JSON.stringify(body));
      expect(issuesOf(res.body)[0]?.loc, JSON.stringify(body)).toEqual(["body", field]);
    }
    expect(await testCallRows(owner.account.id)).toEqual([]);
  });
});

describe("GET /api/customer/test-calls", () => {
  it("lists newest first and reads one by id; another id is 404 test call not found", async () => {
    const { owner } = await accountWithDefaultDestination();
    const first = await owner.client.post("/api/customer/test-calls", { number: "+14155550131" });
    expectStatus(first, 202);
    const second = await owner.client.post("/api/customer/test-calls", { number: "+14155550132" });
    expectStatus(second, 202);
    const list = await owner.client.get("/api/customer/test-calls");
    expectStatus(list, 200);
    expect(list.body.map((t: { id: string }) => t.id)).toEqual([second.body.id, first.body.id]);
    const one = await owner.client.get(`/api/customer/test-calls/${first.body.id}`);
    expectStatus(one, 200);
    expect(one.body).toMatchObject({ id: first.body.id, number: "+14155550131" });
    const missing = await owner.client.get(`/api/customer/test-calls/${crypto.randomUUID()}`);
    expectStatus(missing, 404);
    expect(missing.body).toEqual({ detail: "test call not found" });
  });
});

describe("POST /api/customer/test-calls/{id}/cancel", () => {
  it("cancels a call a node is placing: cancel_test_call reaches that node, and a later end keeps it cancelled", async () => {
    const { owner } = await accountWithDefaultDestination();
    const fake = await connect("tc-node-h");
    const body = await placeTestCall(owner, { number: "+14155550161" });
    await untilStatus(owner, body.id, "dialing");
    await reportProgress(body.id, { status: "ringing", sip_code: 180, node_id: "tc-node-h" });
    const res = await owner.client.post(`/api/customer/test-calls/${body.id}/cancel`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: "cancelled", ended_by: "cancel" });
    expect(await untilSent(fake, (c) => c.type === "cancel_test_call")).toEqual({ type: "cancel_test_call", test_call_id: body.id });
    expect((await reportProgress(body.id, { status: "failed", sip_code: 487, sip_reason: "Request Terminated" })).body).toEqual({
      status: "cancelled",
    });
    expect((await owner.client.get(`/api/customer/test-calls/${body.id}`)).body).toMatchObject({ status: "cancelled", sip_code: 487 });
    // Cancelling again answers it as it is.
    expect(bodyOf(await owner.client.post(`/api/customer/test-calls/${body.id}/cancel`), 200).status).toBe("cancelled");
  });

  it("cancels a queued test call a node admitted before it answered the hub: cancel_test_call reaches that node", async () => {
    const { owner } = await accountWithDefaultDestination();
    const slow = await connect("tc-node-m", () => null);
    const body = await placeTestCall(owner, { number: "+14155550162" });
    await untilSent(slow, (c) => c.type === "originate");
    const admit = await node.admit({
      node_id: "tc-node-m",
      origin: "test",
      test_call_id: body.id,
      sip_call_id: body.sip_call_id,
      src_ip: "127.0.0.1",
      dialed: "1",
    });
    expect(admit.body.decision).toBe("admit");
    expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${body.id}`), 200).status).toBe("queued");
    expect(bodyOf(await owner.client.post(`/api/customer/test-calls/${body.id}/cancel`), 200).status).toBe("cancelled");
    expect(await untilSent(slow, (c) => c.type === "cancel_test_call")).toEqual({ type: "cancel_test_call", test_call_id: body.id });
  });

  it("answers 404 for an unknown test call", async () => {
    const owner = await createAccount();
    expect((await owner.client.post(`/api/customer/test-calls/${crypto.randomUUID()}/cancel`)).status).toBe(404);
  });
});

describe("a test call asked for by an AI agent (connector token)", () => {
  it("waits as awaiting_confirm with a confirm_url; nothing rings until a person confirms it in the portal", async () => {
    const { owner } = await accountWithDefaultDestination();
    const fake = await connect("tc-node-i");
    const asked = await askAsAgent(owner, { number: "+14155550171" });
    expect(asked).toMatchObject({ status: "awaiting_confirm", confirm_url: `https://shield.test/app/test-calls/${asked.id}/confirm` });
    expect(Date.parse(asked.confirm_expires_at!) - Date.parse(asked.created_at)).toBe(600_000);
    expect(asked.created_by).toContain("via Agent");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.seen).toEqual([]);

    // Not from an API key, nor from the agent itself.
    const key = await owner.client.post("/api/auth/api-keys", { name: "script" });
    expectStatus(key, 201);
    const byKey = await as({ apiKey: key.body.key }).post(`/api/customer/test-calls/${asked.id}/confirm`);
    expectStatus(byKey, 403);
    expect(byKey.body).toEqual({ detail: "portal_session_required" });

    const confirmed = await owner.client.post(`/api/customer/test-calls/${asked.id}/confirm`);
    expectStatus(confirmed, 200);
    expect(confirmed.body).toMatchObject({ status: "queued", confirm_url: null });
    expect(confirmed.body.confirmed_at).toBeTypeOf("string");
    expect(confirmed.body.confirmed_by).toBeTypeOf("string");
    await untilSent(fake, (c) => c.type === "originate" && c.test_call_id === asked.id);
    await untilStatus(owner, asked.id, "dialing");
    const again = await owner.client.post(`/api/customer/test-calls/${asked.id}/confirm`);
    expectStatus(again, 409);
  });

  it("refuses a confirmation after ten minutes (409) and the test call expires", async () => {
    const { owner } = await accountWithDefaultDestination();
    const asked = await askAsAgent(owner, { number: "+14155550172" });
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 600_000 + 1_000);
    const late = await owner.client.post(`/api/customer/test-calls/${asked.id}/confirm`);
    expectStatus(late, 409);
    expect((await owner.client.get(`/api/customer/test-calls/${asked.id}`)).body).toMatchObject({ status: "expired", confirm_url: null });
  });

  it("refuses a confirmation with 422 caller_id_not_verified when the caller ID lost its verification", async () => {
    const { owner } = await accountWithDefaultDestination();
    const fake = await connect("tc-node-j");
    const callerId = uniqueNumber();
    const verified = await verifyNumber(owner, fake, callerId);
    const asked = await askAsAgent(owner, { number: "+14155550173", caller_id: callerId });
    expect(asked.status).toBe("awaiting_confirm");
    expect((await owner.client.delete(`/api/customer/verified-numbers/${verified.id}`)).status).toBe(204);
    const res = await owner.client.post(`/api/customer/test-calls/${asked.id}/confirm`);
    expectStatus(res, 422);
    expect(res.body.detail[0]).toMatchObject({ loc: ["body", "caller_id"], msg: "caller_id_not_verified" });
    expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${asked.id}`), 200).status).toBe("awaiting_confirm");
  });

  it("is withdrawn by cancel: it never rings, and no call is recorded", async () => {
    const { owner } = await accountWithDefaultDestination();
    const fake = await connect("tc-node-k");
    const asked = await askAsAgent(owner, { number: "+14155550174" });
    const res = await owner.client.post(`/api/customer/test-calls/${asked.id}/cancel`);
    expect(res.body).toMatchObject({ status: "cancelled" });
    expect((await owner.client.post(`/api/customer/test-calls/${asked.id}/confirm`)).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.seen).toEqual([]);
    const calls = await env.DB.prepare("SELECT id FROM calls WHERE customer_id = ?").bind(owner.account.id).all();
    expect(calls.results).toEqual([]);
  });

  it("expires by the cron once its ten minutes have passed", async () => {
    const { owner } = await accountWithDefaultDestination();
    const asked = await askAsAgent(owner, { number: "+14155550175" });
    const fresh = await askAsAgent(owner, { number: "+14155550176" });
    await sweepTestCalls(testServices(), new Date(Date.parse(asked.confirm_expires_at!) - 1_000));
    expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${asked.id}`), 200).status).toBe("awaiting_confirm");
    await sweepTestCalls(testServices(), new Date(Date.parse(fresh.confirm_expires_at!) + 1));
    expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${asked.id}`), 200).status).toBe("expired");
    expect(bodyOf(await owner.client.get(`/api/customer/test-calls/${fresh.id}`), 200).status).toBe("expired");
  });
});

describe("the cron's sweep of test calls", () => {
  it("fails a queued test call no node took within five minutes", async () => {
    const { owner } = await accountWithDefaultDestination();
    const asked = await askAsAgent(owner, { number: "+14155550177" });
    await env.DB.prepare("UPDATE test_calls SET status = 'queued' WHERE id = ?").bind(asked.id).run();
    await sweepTestCalls(testServices(), new Date(Date.now() + 301_000));
    expect((await owner.client.get(`/api/customer/test-calls/${asked.id}`)).body).toMatchObject({
      status: "failed",
      error: "not_dispatched",
    });
  });
});
