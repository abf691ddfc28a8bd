// GET /api/customer/live-calls: the calls up now, read from the account's call ledger, so a call
// shows from its admission and leaves at its end, whatever D1 has caught up with.
import { describe, expect, it } from "vitest";
import { expectStatus, firstOf, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";

async function trunk() {
  const owner = await createAccount();
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr);
  await addDestination(owner, { host: "sbc.carrier.test", is_default: true, label: "Main SBC" });
  return { owner, src: `${block.base}.10` };
}

describe("live calls", () => {
  it("lists a call from its admission, active once answered, and drops it at its end", async () => {
    const { owner, src } = await trunk();
    const { body: ticket } = await node.admit({ src_ip: src, dialed: "+14155550123" });
    const ringing = await owner.client.get("/api/customer/live-calls");
    expectStatus(ringing, 200);
    expect(ringing.body).toMatchObject({ active_count: 0, ports: 2, ports_in_use: 1 });
    expect(ringing.body.items).toEqual([
      expect.objectContaining({
        id: ticket.call_id,
        status: "ringing",
        dialed: "+14155550123",
        dest_host: "sbc.carrier.test",
        routed_destination_label: "Main SBC",
        media_node: "test-node-1",
        answered_at: null,
        max_call_seconds: 14_400,
        remaining_sec: 14_400,
      }),
    ]);

    const answeredAt = new Date(Date.now() - 10_000).toISOString();
    await node.event(ticket.call_id, { type: "answered", at: answeredAt });
    const active = await owner.client.get("/api/customer/live-calls");
    expectStatus(active, 200);
    expect(active.body).toMatchObject({ active_count: 1, ports_in_use: 1 });
    expect(active.body.items[0]).toMatchObject({ status: "active", answered_at: answeredAt });
    expect(firstOf(active.body.items).remaining_sec).toBeLessThanOrEqual(14_390);

    await node.event(ticket.call_id, {
      type: "ended",
      at: new Date().toISOString(),
      answered_at: answeredAt,
      sip_code: 200,
      hangup_by: "caller",
    });
    expect((await owner.client.get("/api/customer/live-calls")).body).toMatchObject({ items: [], active_count: 0, ports_in_use: 0 });
  });

  it("shows only the account's own calls", async () => {
    const { src } = await trunk();
    await node.admit({ src_ip: src, dialed: "+14155550123" });
    const other = await createAccount();
    expect((await other.client.get("/api/customer/live-calls")).body).toMatchObject({ items: [], ports_in_use: 0 });
  });

  it("asks for a login", async () => {
    expect((await request("GET", "/api/customer/live-calls")).status).toBe(401);
  });
});
