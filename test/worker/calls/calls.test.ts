// GET /api/calls and /api/calls/{id}: what the signalling and the ledger know of each call.
import { describe, expect, it } from "vitest";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";
import { bodyOf, expectStatus } from "../fixtures/client.ts";

async function placedCall() {
  const owner = await createAccount();
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr, { label: "Acme", dial_prefix: "77" });
  const destination = await addDestination(owner, { host: "sbc.carrier.test", is_default: true, label: "Main SBC" });
  const { body: ticket } = await node.admit({ src_ip: `${block.base}.5`, dialed: "7714155550123", ani: "+442079460000" });
  const t0 = Date.now();
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  await node.event(ticket.call_id, { type: "ringing", at: at(900) });
  await node.event(ticket.call_id, { type: "answered", at: at(2_000), codec: "PCMA" });
  await node.event(ticket.call_id, {
    type: "ended",
    at: at(62_000),
    answered_at: at(2_000),
    sip_code: 200,
    hangup_by: "callee",
    q850_cause: 16,
    pdd_ms: 900,
    answer_delay_ms: 1_100,
    early_media: false,
  });
  return { owner, ticket, destination, src: `${block.base}.5` };
}

describe("GET /api/calls", () => {
  it("lists calls newest first with limit, offset and total", async () => {
    const { owner, ticket } = await placedCall();
    const list = await owner.client.get("/api/calls?limit=1");
    expectStatus(list, 200);
    expect(list.body).toMatchObject({ total: 1, limit: 1, offset: 0 });
    expect(list.body.items[0]?.id).toBe(ticket.call_id);
  });

  it("fills every field the signalling knows", async () => {
    const { owner, ticket, destination, src } = await placedCall();
    const res = await owner.client.get(`/api/calls/${ticket.call_id}`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      id: ticket.call_id,
      origin: "sip",
      src_ip: src,
      ani: "+442079460000",
      dialed: "7714155550123",
      sub_customer: "Acme",
      dial_prefix: "77",
      routed_destination_id: destination.id,
      routed_destination_label: "Main SBC",
      dest_host: "sbc.carrier.test",
      status: "completed",
      sip_code: 200,
      q850_cause: 16,
      q850_text: "Normal call clearing",
      hangup_by: "callee",
      pdd_ms: 900,
      answer_delay_ms: 1_100,
      codec: "PCMA",
      duration_sec: 62,
      billsec: 60,
      charged_amount: 0,
      rate_applied: 0.012,
      recording_available: false,
      routed_to_label: "Main SBC",
    });
    expect(res.body.answered_at).toBeTypeOf("string");
    expect(res.body.ended_at).toBeTypeOf("string");
  });

  it("filters by origin, and names the field when origin is not one of the three", async () => {
    const { owner } = await placedCall();
    expect(bodyOf(await owner.client.get("/api/calls?origin=dialer"), 200).total).toBe(0);
    expect(bodyOf(await owner.client.get("/api/calls?origin=sip"), 200).total).toBe(1);
    const bad = await owner.client.get("/api/calls?origin=pstn");
    expectStatus(bad, 422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["query", "origin"], msg: "origin must be 'sip', 'dialer' or 'test'" });
  });

  it("answers 404 for another account's call and lists none of it", async () => {
    const { ticket } = await placedCall();
    const stranger = await createAccount();
    expect((await stranger.client.get(`/api/calls/${ticket.call_id}`)).status).toBe(404);
    expect(bodyOf(await stranger.client.get("/api/calls"), 200).total).toBe(0);
  });
});
