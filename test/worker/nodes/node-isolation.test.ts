// Node isolation on the internal API (issue 20, finding 6): a body naming a node with a token of
// its own (NODE_TOKENS) must come with that node's token; a call's media and a test call's progress
// are taken only from the node carrying them (the call record's node_id, the test call's), and a
// call or test call with no node recorded takes the first node that speaks for it.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newApp } from "../../../worker/app.ts";
import { endedCall } from "../fixtures/call.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { callRow, node, NODE_ID } from "../fixtures/node-client.ts";

const secret = () => `${crypto.randomUUID()}${crypto.randomUUID()}`;
const [OWN, OTHER] = [secret(), secret()];
/** The test harness's node (NODE_ID) has a token of its own here, as has a second node, edge-b. */
const bindings = { ...env, NODE_TOKENS: `${NODE_ID}:${OWN}, edge-b:${OTHER}` };

type As = { token: string; nodeId?: string };
const CARRIER: As = { token: OWN, nodeId: NODE_ID };
const EDGE_B: As = { token: OTHER, nodeId: "edge-b" };
const SHARED: As = { token: env.NODE_TOKEN };
const SHARED_NAMED: As = { token: env.NODE_TOKEN, nodeId: "dev-1" };

async function internal(path: string, as: As, init: RequestInit & { headers?: Record<string, string> }) {
  const ctx = createExecutionContext();
  const headers = { Authorization: `Bearer ${as.token}`, ...(as.nodeId ? { "X-Node-Id": as.nodeId } : {}), ...init.headers };
  const res = await newApp().request(`https://api.test/internal${path}`, { ...init, headers }, bindings, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const postJson = (path: string, as: As, body: unknown) =>
  internal(path, as, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const SIP_LOG = new TextEncoder().encode('{"dir":"in","msg":"INVITE sip:1@x SIP/2.0"}\n');
const upload = (callId: string, as: As, customerId?: string) =>
  internal(`/calls/${callId}/media/sip-log.jsonl${customerId ? `?customer_id=${customerId}` : ""}`, as, {
    method: "PUT",
    headers: { "Content-Type": "application/x-ndjson", "Content-Length": String(SIP_LOG.byteLength) },
    body: SIP_LOG,
  });

describe("a body naming a node with a token of its own", () => {
  it("is refused without that node's token: NODE_TOKEN with no X-Node-Id, or naming another node (403)", async () => {
    const admit = { node_id: "edge-b", boot_id: "b1" };
    const report = { node_id: "edge-b", boot_id: "b1", batch_id: crypto.randomUUID(), events: [] };
    for (const as of [SHARED, SHARED_NAMED, CARRIER]) {
      const admitted = await postJson("/calls/admit", as, admit);
      expect(admitted.status, JSON.stringify(as)).toBe(403);
      expect(admitted.body).toEqual({ detail: "node_id is not the node this token belongs to" });
      expect((await postJson("/calls/report", as, report)).status, JSON.stringify(as)).toBe(403);
    }
    // With edge-b's own token it gets as far as the body's validation, and reports.
    expect((await postJson("/calls/admit", EDGE_B, admit)).status).toBe(422);
    expect((await postJson("/calls/report", EDGE_B, report)).status).toBe(200);
    // Unlisted nodes on NODE_TOKEN still name themselves freely.
    expect((await postJson("/calls/report", SHARED, { ...report, node_id: "dev-7" })).status).toBe(200);
  });
});

describe("PUT /internal/calls/{id}/media/{name}", () => {
  it("is taken only from the node the call's record names (403 for any other)", async () => {
    const { callId } = await endedCall();
    for (const as of [EDGE_B, SHARED, SHARED_NAMED]) {
      const res = await upload(callId, as);
      expect(res.status, JSON.stringify(as)).toBe(403);
      expect(res.body).toEqual({ detail: "call is carried by another node" });
    }
    expect(await upload(callId, CARRIER)).toMatchObject({ status: 200, body: { size: SIP_LOG.byteLength } });
  });

  it("for a call with no node recorded, takes the first node and records it", async () => {
    const { callId } = await endedCall();
    await env.DB.prepare("UPDATE calls SET node_id = NULL WHERE id = ?").bind(callId).run();
    expect((await upload(callId, EDGE_B)).status).toBe(200);
    expect((await callRow(callId))!.node_id).toBe("edge-b");
    expect((await upload(callId, CARRIER)).status).toBe(403);
    expect((await upload(callId, EDGE_B)).status).toBe(200);
  });

  it("for a live call whose record is not in D1 yet, asks the ledger which node carries it", async () => {
    const owner = await createAccount();
    const block = v4Block();
    await addWhitelistEntry(owner, block.cidr);
    await addDestination(owner, { is_default: true });
    const { body: ticket } = await node.admit({ src_ip: `${block.base}.5`, dialed: "14155550123" });
    expect(ticket.call_id, JSON.stringify(ticket)).toBeTypeOf("string");
    // As if its record were still on its way through the ledger's outbox.
    await env.DB.prepare("DELETE FROM calls WHERE id = ?").bind(ticket.call_id).run();
    expect((await upload(ticket.call_id, EDGE_B, owner.account.id)).status).toBe(403);
    expect((await upload(ticket.call_id, SHARED, owner.account.id)).status).toBe(403);
    expect((await upload(ticket.call_id, CARRIER, owner.account.id)).status).toBe(200);
  });

  it("still takes uploads of unlisted nodes on NODE_TOKEN, which are not told apart", async () => {
    const { callId } = await endedCall();
    expect((await node.upload(callId, "sip-log.jsonl", SIP_LOG)).status).toBe(200);
  });
});

describe("POST /internal/test-calls/{id}/progress", () => {
  async function testCall(nodeId: string | null) {
    const owner = await createAccount();
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    await env.DB.prepare(
      `INSERT INTO test_calls (id, customer_id, status, number, sip_call_id, node_id, created_at, updated_at)
       VALUES (?, ?, 'dialing', '+14155550199', ?, ?, ?, ?)`,
    )
      .bind(id, owner.account.id, `${id}@test`, nodeId, now, now)
      .run();
    return id;
  }
  const progress = (id: string, as: As, nodeId: string, status = "ringing") =>
    postJson(`/test-calls/${id}/progress`, as, { status, at: new Date().toISOString(), node_id: nodeId });
  const nodeOf = async (id: string) =>
    (await env.DB.prepare("SELECT node_id, status FROM test_calls WHERE id = ?").bind(id).first<{ node_id: string; status: string }>())!;

  it("is taken only from the node placing the test call (403 for any other)", async () => {
    const id = await testCall(NODE_ID);
    const refused = await progress(id, EDGE_B, "edge-b");
    expect(refused).toEqual({ status: 403, body: { detail: "test call is carried by another node" } });
    expect((await progress(id, SHARED, "dev-1")).status).toBe(403);
    expect((await progress(id, SHARED_NAMED, "dev-1")).status).toBe(403);
    expect((await progress(id, SHARED, NODE_ID)).status).toBe(403);
    expect(await nodeOf(id)).toEqual({ node_id: NODE_ID, status: "dialing" });
    expect(await progress(id, CARRIER, NODE_ID)).toEqual({ status: 200, body: { status: "ringing" } });
  });

  it("for a test call with no node recorded, takes the first node and records it", async () => {
    const id = await testCall(null);
    expect((await progress(id, EDGE_B, "edge-b")).status).toBe(200);
    expect(await nodeOf(id)).toEqual({ node_id: "edge-b", status: "ringing" });
    expect((await progress(id, CARRIER, NODE_ID, "answered")).status).toBe(403);
    expect((await progress(id, EDGE_B, "edge-b", "answered")).body).toEqual({ status: "answered" });
  });
});
