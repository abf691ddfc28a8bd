// GET /api/calls/{id}/inspect: after the call, the record; while it is up, `live`, the media legs
// and the ladder so far asked of the SIP node carrying it through the NodeHub. A node that cannot
// answer leaves `media` null (and the ladder as recorded) and the inspector still answers.
import { afterEach, describe, expect, it } from "vitest";
import { closeNodes, connectNode } from "../fixtures/fake-node.ts";
import { addSipMessages, giveVerdict, insertCall } from "../fixtures/call-record.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";
import { expectStatus } from "../fixtures/client.ts";

/** A call up now on `nodeId`, admitted and (unless ringing) answered through the node API, as the ledger holds it. */
async function upCallOn(owner: Session, nodeId: string, answeredAgoMs: number | null = null) {
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr);
  await addDestination(owner, { host: "sbc.carrier.test", is_default: true });
  const { body: ticket } = await node.admit({ src_ip: `${block.base}.10`, dialed: "14155550123", node_id: nodeId });
  if (answeredAgoMs !== null)
    await node.event(ticket.call_id, { type: "answered", at: new Date(Date.now() - answeredAgoMs).toISOString() });
  return { id: ticket.call_id as string };
}

afterEach(closeNodes);

const leg = (packets: number, extra: Record<string, unknown> = {}) => ({
  endpoint: "203.0.113.10:40000",
  packets,
  bytes: packets * 172,
  errors: 0,
  last_packet: new Date().toISOString(),
  ssrc: 1234,
  lost: 2,
  loss_pct: 0.5,
  jitter_ms: 4.5,
  rtt_ms: null,
  mos: 4.3,
  ...extra,
});

describe("GET /api/calls/{id}/inspect", () => {
  it("after the call: the record, the ladder, the final media counters, quality, pipeline and verdict", async () => {
    const owner = await createAccount();
    const qos = { caller: leg(1500), callee: leg(1400, { mos: 3.9, jitter_ms: 9, loss_pct: 1.2 }) };
    const call = await insertCall(owner, {
      external_id: "crm-7",
      external_name: "Campaign 7",
      sub_customer: "Acme",
      route_prefix: "44",
      media_node: "media-1.shield.test",
      max_call_seconds: 14_400,
      sip_code: 200,
      hangup_by: "caller",
      q850_cause: 16,
      q850_text: "Normal call clearing",
      pdd_ms: 800,
      answer_delay_ms: 1200,
      early_media: false,
      codec: "PCMA",
      mos: 3.9,
      jitter_ms: 9,
      packet_loss_pct: 1.2,
      qos,
      analysis_status: "done",
      transcript_status: "done",
    });
    await giveVerdict(owner, call, { probability: 77, category: "robocall", title: "Robocall", summary: "A recorded offer." });
    await addSipMessages(owner, call.id, [
      { time_stamp: call.started_at, direction: "in", method: "INVITE", from_ip: "a", to_ip: "b", first_line: "INVITE sip:x SIP/2.0" },
    ]);

    const res = await owner.client.get(`/api/calls/${call.id}/inspect`);
    expectStatus(res, 200);
    expect(res.body.live).toBe(false);
    expect(res.body.call).toMatchObject({
      id: call.id,
      status: "completed",
      external_id: "crm-7",
      external_name: "Campaign 7",
      sub_customer: "Acme",
      route_prefix: "44",
      media_node: "media-1.shield.test",
      started_at: call.started_at,
      ended_at: call.ended_at,
      elapsed_sec: 30,
      duration_sec: 30,
      max_call_seconds: 14_400,
      remaining_sec: null,
      sip_code: 200,
      q850_text: "Normal call clearing",
    });
    expect(res.body.ladder).toHaveLength(1);
    expect(res.body.ladder[0]).toMatchObject({ method: "INVITE", fromip: "a", toip: "b" });
    expect(res.body.signalling).toEqual({ pdd_ms: 800, answer_delay_ms: 1200, early_media: false, codec: "PCMA" });
    expect(res.body.media).toEqual({ sampled_at: call.ended_at, legs: qos });
    expect(res.body.quality).toEqual({ mos: 3.9, jitter_ms: 9, packet_loss_pct: 1.2, legs: qos });
    expect(res.body.pipeline).toEqual({
      transcript_status: "done",
      analysis_status: "done",
      processing: "full",
      sampled: true,
      processing_error: null,
    });
    expect(res.body.verdict).toEqual({
      title: "Robocall",
      probability: 77,
      category: "robocall",
      recommendation: "review",
      summary: "A recorded offer.",
    });
    expect(Date.parse(res.body.sampled_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("after an unanswered call without media: media, quality and verdict are null", async () => {
    const owner = await createAccount();
    const call = await insertCall(owner, { status: "failed", answered_at: null, billsec: 0, sip_code: 486 });
    const res = await owner.client.get(`/api/calls/${call.id}/inspect`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ live: false, media: null, quality: null, verdict: null, ladder: [] });
  });

  it("while the call is up: live, with the legs the node carrying it reports", async () => {
    const owner = await createAccount();
    const nodeId = `inspect-node-${crypto.randomUUID()}`;
    const legs = { caller: leg(250), callee: leg(240, { mos: 4.0, jitter_ms: 12.5, loss_pct: 2 }) };
    const sampledAt = new Date().toISOString();
    const { seen } = await connectNode(nodeId, (command) =>
      command.type === "stats" ? { ok: true, result: { active_calls: 1, transactions: 2, media: { sampled_at: sampledAt, legs } } } : null,
    );
    const call = await upCallOn(owner, nodeId, 20_000);

    const res = await owner.client.get(`/api/calls/${call.id}/inspect`);
    expectStatus(res, 200);
    expect(seen).toEqual([{ type: "stats", call_id: call.id }]);
    expect(res.body.live).toBe(true);
    expect(res.body.media).toEqual({ sampled_at: sampledAt, legs });
    // The worst leg: lowest MOS, highest jitter and loss.
    expect(res.body.quality).toEqual({ mos: 4.0, jitter_ms: 12.5, packet_loss_pct: 2, legs });
    // Admitted a moment ago; the node reports it answered 20 s ago.
    expect(res.body.call.elapsed_sec).toBeLessThan(10);
    expect(res.body.call.status).toBe("active");
    // The cap (4 h) runs from the answer: less the 20 s or so since.
    expect(res.body.call.remaining_sec).toBeGreaterThan(14_370);
    expect(res.body.call.remaining_sec).toBeLessThanOrEqual(14_380);
    expect(res.body.call.ended_at).toBeNull();
    expect(res.body.verdict).toBeNull();
  });

  it("while the call is up: the ladder so far from the same stats answer, in the recorded ladder's shape, growing poll by poll", async () => {
    const owner = await createAccount();
    const nodeId = `ladder-node-${crypto.randomUUID()}`;
    const legs = { caller: leg(50), callee: leg(40) };
    const start = Date.now() - 5_000;
    const at = (ms: number) => new Date(start + ms).toISOString();
    // As the node's CallReport records them (schema/node-api.ts SipLogMessage): optional fields left out, a raw text it may carry.
    const invite = {
      time_stamp: at(0),
      direction: "in",
      method: "INVITE",
      fromip: "203.0.113.10:5060",
      toip: "198.51.100.2:5060",
      fromtag: "caller-tag",
      first_line: "INVITE sip:14155550123@198.51.100.2 SIP/2.0",
      raw: "INVITE sip:14155550123@198.51.100.2 SIP/2.0\r\n\r\n",
    };
    const ringing = {
      time_stamp: at(400),
      direction: "in",
      method: "INVITE",
      status: "180 Ringing",
      fromip: "198.51.100.9:5060",
      toip: "198.51.100.2:5060",
      fromtag: "b-tag",
      totag: "callee-tag",
      first_line: "SIP/2.0 180 Ringing",
    };
    const answered = { ...ringing, time_stamp: at(900), status: "200 OK", first_line: "SIP/2.0 200 OK" };
    const ladder: unknown[] = [invite, ringing];
    const { seen } = await connectNode(nodeId, (command) =>
      command.type === "stats"
        ? { ok: true, result: { active_calls: 1, transactions: 1, media: { sampled_at: at(1_000), legs }, ladder } }
        : null,
    );
    const call = await upCallOn(owner, nodeId, 1_000);

    const first = await owner.client.get(`/api/calls/${call.id}/inspect`);
    expectStatus(first, 200);
    // One hub round trip answers both the media and the ladder.
    expect(seen).toEqual([{ type: "stats", call_id: call.id }]);
    expect(first.body.live).toBe(true);
    expect(first.body.media).toEqual({ sampled_at: at(1_000), legs });
    expect(first.body.ladder).toEqual([
      {
        time_stamp: invite.time_stamp,
        direction: "in",
        method: "INVITE",
        status: null,
        fromip: "203.0.113.10:5060",
        toip: "198.51.100.2:5060",
        fromtag: "caller-tag",
        totag: null,
        first_line: "INVITE sip:14155550123@198.51.100.2 SIP/2.0",
        headers: null,
      },
      { ...ringing, headers: null },
    ]);

    // The next poll: what the node has recorded since.
    ladder.push(answered);
    const second = await owner.client.get(`/api/calls/${call.id}/inspect`);
    expectStatus(second, 200);
    expect(seen).toHaveLength(2);
    expect(second.body.ladder.map((m) => m.status)).toEqual([null, "180 Ringing", "200 OK"]);
    expect(second.body.ladder[2]).toEqual({ ...answered, headers: null });

    // A ladder that does not parse leaves the recorded one (none yet) and the media as the node said.
    ladder.push({ direction: "sideways" });
    const third = await owner.client.get(`/api/calls/${call.id}/inspect`);
    expect(third.body).toMatchObject({ live: true, ladder: [], media: { sampled_at: at(1_000), legs } });
  });

  it("while ringing, the whole cap remains", async () => {
    const owner = await createAccount();
    const call = await upCallOn(owner, `absent-${crypto.randomUUID()}`);
    const res = await owner.client.get(`/api/calls/${call.id}/inspect`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ live: true, media: null, quality: null });
    expect(res.body.call.remaining_sec).toBe(14_400);
  });

  it("never fails for the node: none connected, a refusal, silence or nonsense all leave media null", async () => {
    // One account per call: pay-as-you-go carries two calls at once.
    const upCall = async (nodeId: string) => {
      const owner = await createAccount();
      return { owner, ...(await upCallOn(owner, nodeId, 1_000)) };
    };

    const nobody = await upCall(`absent-${crypto.randomUUID()}`);
    const refusing = `refusing-${crypto.randomUUID()}`;
    await connectNode(refusing, () => ({ ok: false, error: "unknown call" }));
    const silent = `silent-${crypto.randomUUID()}`;
    await connectNode(silent, () => null);
    const garbled = `garbled-${crypto.randomUUID()}`;
    await connectNode(garbled, () => ({ ok: true, result: { media: { legs: "lots" } } }));

    for (const call of [nobody, await upCall(refusing), await upCall(silent), await upCall(garbled)]) {
      const res = await call.owner.client.get(`/api/calls/${call.id}/inspect`);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ live: true, media: null, quality: null });
      expect(res.body.call.id).toBe(call.id);
    }
  });
});
