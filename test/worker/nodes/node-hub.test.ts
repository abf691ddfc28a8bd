// NodeHub: a SIP node holds a WebSocket; POST /customer/destinations/{id}/check reaches it,
// waits for its OPTIONS result a few seconds at most, and reports the monitor fields.
import { afterEach, describe, expect, it } from "vitest";
import { closeNodes, connectNode } from "../fixtures/fake-node.ts";
import { bodyOf, expectStatus, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount } from "../fixtures/factory.ts";

afterEach(closeNodes);

describe("POST /api/customer/destinations/{id}/check", () => {
  it("says why when no SIP node is connected, leaving the status alone", async () => {
    const owner = await createAccount();
    const d = await addDestination(owner, { host: "lonely.sbc.test" });
    const res = await owner.client.post(`/api/customer/destinations/${d.id}/check`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ monitor_status: "unknown", monitor_last_error: "no SIP node is connected to send the check" });
    expect(res.body.monitor_last_check_at).toBeTypeOf("string");
  });

  it("sends OPTIONS through a connected node and records the answer; a first answer switches monitoring on", async () => {
    const owner = await createAccount();
    const d = await addDestination(owner, { host: "sbc1.carrier.test", port: 5080, transport: "tcp" });
    const { seen } = await connectNode("node-a", () => ({ ok: true, result: { code: 200, rtt_ms: 23, error: null } }));
    const res = await owner.client.post(`/api/customer/destinations/${d.id}/check`);
    expectStatus(res, 200);
    expect(seen).toEqual([{ type: "options", host: "sbc1.carrier.test", port: 5080, transport: "tcp" }]);
    expect(res.body).toMatchObject({
      monitor_status: "up",
      monitor_rtt_ms: 23,
      monitor_last_code: 200,
      monitor_last_error: null,
      monitor_supported: true,
      monitor_enabled: true,
    });
    expect(res.body.monitor_last_change_at).toBe(res.body.monitor_last_check_at);
    expect(bodyOf(await owner.client.get("/api/customer/destinations"), 200)[0]).toMatchObject({ monitor_status: "up" });
  });

  it("marks the destination down when the node got no SIP answer", async () => {
    const owner = await createAccount();
    const d = await addDestination(owner, { host: "dead.sbc.test" });
    await connectNode("node-b", () => ({ ok: true, result: { code: null, rtt_ms: null, error: "no response in 2 s" } }));
    const res = await owner.client.post(`/api/customer/destinations/${d.id}/check`);
    expect(res.body).toMatchObject({
      monitor_status: "down",
      monitor_last_code: null,
      monitor_last_error: "no response in 2 s",
      monitor_enabled: false,
    });
  });

  it("gives up after 4 seconds when the node does not report", async () => {
    const owner = await createAccount();
    const d = await addDestination(owner, { host: "slow.sbc.test" });
    await connectNode("node-c", () => null);
    const started = Date.now();
    const res = await owner.client.post(`/api/customer/destinations/${d.id}/check`);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(res.body).toMatchObject({ monitor_status: "unknown", monitor_last_error: "the SIP node did not report within 4 s" });
  }, 15_000);

  it("answers 404 for another account's destination, sending nothing", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const d = await addDestination(owner);
    const { seen } = await connectNode("node-d", () => ({ ok: true, result: { code: 200, rtt_ms: 1, error: null } }));
    expect((await other.client.post(`/api/customer/destinations/${d.id}/check`)).status).toBe(404);
    expect(seen).toEqual([]);
  });
});

describe("the node's control socket", () => {
  it("needs the node token", async () => {
    const res = await request("GET", "/internal/hub?node_id=x", { headers: { Upgrade: "websocket" } });
    expect(res.status).toBe(401);
  });
});
