// Call admission through the internal node API, every branch of the flow: whitelist and
// sub-customers, controlled numbers, route choice, ports, credit; and the call events after.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, testServices, type Session } from "../fixtures/factory.ts";
import { syncAdmissionState } from "../../../worker/services/trunk/admission-state.ts";
import { addRoutingRule, addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { callRow, node } from "../fixtures/node-client.ts";

/** An account with a whitelisted /24 and a default destination; calls come from .10. */
async function trunk(): Promise<{ owner: Session; src: string; cidr: string; fallback: any }> {
  const owner = await createAccount();
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr, { label: "Main trunk" });
  const fallback = await addDestination(owner, { host: "default.sbc.test", is_default: true, label: "Default" });
  return { owner, src: `${block.base}.10`, cidr: block.cidr, fallback };
}

/**
 * These tests change the account's rows in D1 directly, around the services: the ledger's copy of
 * the admission state is then handed over again, as every service write does.
 */
const resync = (owner: Session) => syncAdmissionState(testServices(), owner.account.id);

const controlled = (owner: Session, ani: string, action: "block" | "divert", divertTo: string | null = null) =>
  env.DB.prepare(
    "INSERT INTO ani_controls (id, customer_id, ani, action, divert_destination_id, reason, created_at) VALUES (?, ?, ?, ?, ?, 'test', ?)",
  )
    .bind(crypto.randomUUID(), owner.account.id, ani, action, divertTo, new Date().toISOString())
    .run();

describe("who may call", () => {
  it("ignores a source on no whitelist, recording nothing", async () => {
    const res = await node.admit({ src_ip: "192.0.2.250", dialed: "14155550123" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ decision: "ignore" });
  });

  it("ignores a disabled entry", async () => {
    const owner = await createAccount();
    const block = v4Block();
    await addWhitelistEntry(owner, block.cidr, { enabled: false });
    await addDestination(owner, { is_default: true });
    expect((await node.admit({ src_ip: `${block.base}.1`, dialed: "1415" })).body).toEqual({ decision: "ignore" });
  });

  it("refuses callers without the node token", async () => {
    const res = await request("POST", "/internal/calls/admit", { body: {}, headers: { Authorization: "Bearer wrong" } });
    expect(res.status).toBe(401);
    expect((await request("GET", "/internal/whitelist")).status).toBe(401);
  });

  it("answers 422 naming the field for a malformed admission request", async () => {
    const res = await node.admit({ src_ip: 42, dialed: "1" });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "src_ip"]);
  });

  it("refuses a suspended account with 403 and records the call", async () => {
    const { owner, src } = await trunk();
    await env.DB.prepare("UPDATE customers SET status = 'suspended' WHERE id = ?").bind(owner.account.id).run();
    await resync(owner);
    const res = await node.admit({ src_ip: src, dialed: "14155550123" });
    expect(res.body).toMatchObject({ decision: "reject", sip_code: 403, reason: "account_suspended" });
    expect(await callRow(res.body.call_id)).toMatchObject({ status: "rejected", sip_code: 403, customer_id: owner.account.id });
  });
});

describe("route choice", () => {
  it("takes the whitelist entry's own destination first", async () => {
    const owner = await createAccount();
    const block = v4Block();
    const pinned = await addDestination(owner, { host: "pinned.sbc.test", tech_prefix: "77#" });
    await addDestination(owner, { host: "default.sbc.test", is_default: true });
    await addWhitelistEntry(owner, block.cidr, { destination_id: pinned.id });
    const res = await node.admit({ src_ip: `${block.base}.9`, dialed: "+1 (415) 555-0123" });
    expect(res.body).toMatchObject({
      decision: "admit",
      route: "whitelist_entry",
      dialed: "77#+14155550123",
      destination: { id: pinned.id, host: "pinned.sbc.test", port: 5060, transport: "udp", auth: null },
      processing: "full",
    });
  });

  it("picks the longest matching routing prefix, then the lower priority value", async () => {
    const { owner, src } = await trunk();
    const uk = await addDestination(owner, { host: "uk.sbc.test" });
    const london = await addDestination(owner, { host: "london.sbc.test" });
    const londonBackup = await addDestination(owner, { host: "london2.sbc.test" });
    await addRoutingRule(owner, "44", uk.id);
    await addRoutingRule(owner, "+4420", londonBackup.id, { priority: 200 });
    await addRoutingRule(owner, "4420", london.id, { priority: 10 });
    const disabled = await addDestination(owner, { host: "never.sbc.test" });
    await addRoutingRule(owner, "442079", disabled.id, { enabled: false });

    const london1 = await node.admit({ src_ip: src, dialed: "+442079460000" });
    expect(london1.body).toMatchObject({ route: "routing_rule", destination: { id: london.id } });
    expect(await callRow(london1.body.call_id)).toMatchObject({ route_prefix: "4420", routed_destination_id: london.id });
    expect((await node.admit({ src_ip: src, dialed: "441632960000" })).body.destination.id).toBe(uk.id);
  });

  it("falls back to the default destination, and answers 404 no_route without one", async () => {
    const { src, fallback } = await trunk();
    expect((await node.admit({ src_ip: src, dialed: "33140000000" })).body).toMatchObject({
      route: "default",
      destination: { id: fallback.id },
    });

    const bare = await createAccount();
    const block = v4Block();
    await addWhitelistEntry(bare, block.cidr);
    const res = await node.admit({ src_ip: `${block.base}.3`, dialed: "33140000000" });
    expect(res.body).toMatchObject({ decision: "reject", sip_code: 404, reason: "no_route" });
    expect(await callRow(res.body.call_id)).toMatchObject({ status: "rejected", dest_host: "" });
  });

  it("tells sub-customers behind one address apart by dial prefix, and strips it", async () => {
    const owner = await createAccount();
    const block = v4Block();
    const src = `${block.base}.20`;
    const acme = await addDestination(owner, { host: "acme.sbc.test" });
    const zen = await addDestination(owner, { host: "zen.sbc.test" });
    await addWhitelistEntry(owner, `${src}/32`, { dial_prefix: "1001", label: "Acme", destination_id: acme.id });
    await addWhitelistEntry(owner, `${src}/32`, { dial_prefix: "10012", label: "Zen", destination_id: zen.id });

    const a = await node.admit({ src_ip: src, dialed: "100114155550123" });
    expect(a.body).toMatchObject({ destination: { id: acme.id }, dialed: "14155550123", sub_customer: "Acme" });
    expect(await callRow(a.body.call_id)).toMatchObject({ sub_customer: "Acme", dial_prefix: "1001" });
    expect((await node.admit({ src_ip: src, dialed: "1001214155550123" })).body).toMatchObject({
      destination: { id: zen.id },
      sub_customer: "Zen",
    });

    const unknown = await node.admit({ src_ip: src, dialed: "999914155550123" });
    expect(unknown.body).toMatchObject({ decision: "reject", sip_code: 404, reason: "no_sub_customer_for_prefix" });
  });

  it("declines a controlled number with 603 and diverts another to its destination", async () => {
    const { owner, src } = await trunk();
    const honeypot = await addDestination(owner, { host: "ivr.fraud-team.test" });
    await controlled(owner, "14155550666", "block");
    await controlled(owner, "14155550777", "divert", honeypot.id);
    await resync(owner);

    const blocked = await node.admit({ src_ip: src, ani: "+1 415 555 0666", dialed: "442079460000" });
    expect(blocked.body).toMatchObject({ decision: "reject", sip_code: 603, reason: "controlled_number_blocked" });
    expect(await callRow(blocked.body.call_id)).toMatchObject({ status: "rejected", ani: "+14155550666" });

    const diverted = await node.admit({ src_ip: src, ani: "+14155550777", dialed: "442079460000" });
    expect(diverted.body).toMatchObject({ decision: "admit", route: "divert", destination: { id: honeypot.id } });

    await env.DB.prepare("UPDATE ani_controls SET released_at = ? WHERE ani = ?").bind(new Date().toISOString(), "14155550666").run();
    await resync(owner);
    expect((await node.admit({ src_ip: src, ani: "+14155550666", dialed: "442079460000" })).body.decision).toBe("admit");
  });

  it("hands the node the destination's digest credential, and only the node", async () => {
    const owner = await createAccount();
    const block = v4Block();
    const secured = await addDestination(owner, {
      host: "secure.sbc.test",
      is_default: true,
      auth_username: "trunk7",
      auth_password: "s3cret-digest-pass",
      auth_realm: "sbc",
    });
    await addWhitelistEntry(owner, block.cidr);
    const res = await node.admit({ src_ip: `${block.base}.2`, dialed: "1415" });
    expect(res.body.destination.auth).toEqual({ username: "trunk7", password: "s3cret-digest-pass", realm: "sbc" });
    const listed = await owner.client.get("/api/customer/destinations");
    expectStatus(listed, 200);
    expect(JSON.stringify(listed.body)).not.toContain("s3cret-digest-pass");
    expect(listed.body.find((d) => d.id === secured.id)?.has_credential).toBe(true);
  });
});

describe("ports and credit", () => {
  it("admits exactly 10 of 200 simultaneous INVITEs on an account with 10 ports", async () => {
    const { owner, src } = await trunk();
    await env.DB.prepare("UPDATE customers SET ports_override = 10 WHERE id = ?").bind(owner.account.id).run();
    await resync(owner);
    // Enough credit that ports, not money, are what runs out (each call sets aside up to 4 hours).
    await env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(owner.account.id)).credit({
      entryId: "topup",
      type: "topup",
      amountMicros: 100_000_000,
      createdAt: new Date().toISOString(),
    });
    const replies = await Promise.all(Array.from({ length: 200 }, () => node.admit({ src_ip: src, dialed: "14155550123" })));
    expect(replies.filter((r) => r.body.decision === "admit")).toHaveLength(10);
    expect(replies.filter((r) => r.body.sip_code === 503)).toHaveLength(190);
    expect(bodyOf(await owner.client.get("/api/customer/balance"), 200).active_calls).toBe(10);
    const rejected = await env.DB.prepare("SELECT COUNT(*) AS n FROM calls WHERE customer_id = ? AND status = 'rejected'")
      .bind(owner.account.id)
      .first<{ n: number }>();
    expect(rejected!.n).toBe(190);
  });

  it("answers 503 when every port is taken (pay-as-you-go: 2)", async () => {
    const { src } = await trunk();
    const replies = await Promise.all([0, 1, 2, 3].map(() => node.admit({ src_ip: src, dialed: "14155550123" })));
    expect(replies.filter((r) => r.body.decision === "admit")).toHaveLength(2);
    expect(replies.filter((r) => r.body.sip_code === 503 && r.body.reason === "no_free_port")).toHaveLength(2);
  });

  it("answers 402 when the pilot is over and the balance cannot cover a call's shortest grant (6 s)", async () => {
    const { owner, src } = await trunk();
    await env.DB.prepare("UPDATE customers SET pilot_ends_at = ? WHERE id = ?").bind("2020-01-01T00:00:00.000Z", owner.account.id).run();
    await resync(owner);
    const ledger = env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(owner.account.id));
    // $0.001 left: 5 s at $0.012 a minute, shared by the 2 ports: 2 s a call.
    await ledger.debit({ entryId: "drain", type: "adjustment", amountMicros: 4_999_000, createdAt: new Date().toISOString() });
    const res = await node.admit({ src_ip: src, dialed: "14155550123" });
    expect(res.body).toMatchObject({ decision: "reject", sip_code: 402, reason: "insufficient_credit" });
  });

  it("gives max_call_seconds from the plan cap and credit", async () => {
    const { src } = await trunk();
    const res = await node.admit({ src_ip: src, dialed: "14155550123" });
    // $5 and 300 pilot minutes: the 4-hour cap binds.
    expect(res.body.max_call_seconds).toBe(14_400);
  });
});

describe("call events", () => {
  it("moves a call through ringing and answered to completed, tops its credit up as it goes, and charges it once", async () => {
    const { owner, src } = await trunk();
    await env.DB.prepare("UPDATE customers SET pilot_ends_at = ? WHERE id = ?").bind("2020-01-01T00:00:00.000Z", owner.account.id).run();
    await resync(owner);
    const { body: ticket } = await node.admit({ src_ip: src, dialed: "14155550123" });
    // Credit is held a 60-second slice at a time.
    expect(ticket.granted_seconds).toBe(60);
    // The call's moments, as the node reports them: answered 125 s ago, ended now.
    const t0 = Date.now() - 128_000;
    const iso = (ms: number) => new Date(t0 + ms).toISOString();
    expect((await node.event(ticket.call_id, { type: "ringing", at: iso(800), early_media: true })).body.status).toBe("ringing");
    expect((await node.event(ticket.call_id, { type: "answered", at: iso(3_000), codec: "PCMU" })).body.status).toBe("active");
    // Each report tops up a call with less than half a slice left (the answer's report took it to 120 s).
    const live = [{ call_id: ticket.call_id, customer_id: owner.account.id }];
    expect((await node.report({ live })).body).toEqual({ grants: [{ call_id: ticket.call_id, granted_seconds: 180 }], ended: [] });
    expect((await node.report({ live })).body.grants).toEqual([{ call_id: ticket.call_id, granted_seconds: 180 }]);
    const ended = {
      type: "ended",
      at: iso(3_000 + 125_000),
      answered_at: iso(3_000),
      sip_code: 200,
      hangup_by: "caller",
      q850_cause: 16,
      pdd_ms: 800,
      answer_delay_ms: 2_200,
      ladder: [
        {
          time_stamp: iso(0),
          direction: "in",
          method: "INVITE",
          fromip: src,
          toip: "127.0.0.1",
          first_line: "INVITE sip:14155550123@127.0.0.1 SIP/2.0",
        },
        {
          time_stamp: iso(10),
          direction: "out",
          method: "INVITE",
          status: "100 Trying",
          fromip: "127.0.0.1",
          toip: src,
          first_line: "SIP/2.0 100 Trying",
        },
      ],
    };
    const first = await node.event(ticket.call_id, ended);
    const again = await node.event(ticket.call_id, ended);
    expect(first.body).toEqual({ call_id: ticket.call_id, status: "completed", billsec: 125, charged_amount: 0.025 });
    expect(again.body).toEqual(first.body);
    const row = await callRow(ticket.call_id);
    // From the admission (when the Worker first saw the call) to the reported end.
    expect(row!.duration_sec).toBe(Math.max(0, Math.round((Date.parse(ended.at) - Date.parse(row!.started_at)) / 1000)));
    expect(row).toMatchObject({
      status: "completed",
      billsec: 125,
      charged_micros: 25_000,
      rate_applied_micros: 12_000,
      q850_cause: 16,
      q850_text: "Normal call clearing",
      hangup_by: "caller",
      pdd_ms: 800,
      early_media: 1,
      codec: "PCMU",
    });
    const ladder = await env.DB.prepare("SELECT seq, method FROM call_sip_messages WHERE call_id = ? ORDER BY seq")
      .bind(ticket.call_id)
      .all();
    expect(ladder.results).toEqual([
      { seq: 0, method: "INVITE" },
      { seq: 1, method: "INVITE" },
    ]);
    const balance = await owner.client.get("/api/customer/balance");
    expect(balance.body).toMatchObject({ balance: 4.975, active_calls: 0 });
    const ledger = await owner.client.get("/api/customer/ledger");
    expectStatus(ledger, 200);
    expect(ledger.body.items[0]).toMatchObject({ type: "call", amount: -0.025, balance_after: 4.975, call_id: ticket.call_id });
  });

  it("ends an unanswered call as failed, free, and frees its port", async () => {
    const { owner, src } = await trunk();
    const { body: ticket } = await node.admit({ src_ip: src, dialed: "14155550123" });
    expect(bodyOf(await owner.client.get("/api/customer/balance"), 200).active_calls).toBe(1);
    const res = await node.event(ticket.call_id, {
      type: "ended",
      at: new Date().toISOString(),
      answered_at: null,
      sip_code: 486,
      hangup_by: "callee",
      q850_cause: 17,
    });
    expect(res.body).toMatchObject({ status: "failed", billsec: 0, charged_amount: 0 });
    expect((await owner.client.get("/api/customer/balance")).body).toMatchObject({ active_calls: 0, balance: 5 });
    // A late "answered" never reopens it.
    await node.event(ticket.call_id, { type: "answered", at: new Date().toISOString() });
    expect((await callRow(ticket.call_id))!.status).toBe("failed");
  });

  it("tells a node that reports a call the ledger does not carry to hang it up, and records nothing for it", async () => {
    const { owner } = await trunk();
    const stray = crypto.randomUUID();
    const res = await node.report({
      events: [{ call_id: stray, customer_id: owner.account.id, seq: 1, event: { type: "answered", at: new Date().toISOString() } }],
      live: [{ call_id: stray, customer_id: owner.account.id }],
    });
    expect(res.body).toEqual({ grants: [], ended: [{ call_id: stray, reason: "unknown_call" }] });
    expect(await callRow(stray)).toBeNull();
  });

  it("takes a heartbeat naming more calls than the 64 KiB body limit holds (1,500 calls, about 130 KB)", async () => {
    const { owner } = await trunk();
    const live = Array.from({ length: 1_500 }, () => ({ call_id: crypto.randomUUID(), customer_id: owner.account.id }));
    expect(JSON.stringify(live).length).toBeGreaterThan(64 * 1024);
    const res = await node.report({ live });
    expect(res.status).toBe(200);
    expect(res.body.ended).toHaveLength(1_500);
  });

  it("refuses a report that is not the contract, naming the field", async () => {
    const res = await node.report({
      events: [{ call_id: "not-a-uuid", customer_id: crypto.randomUUID(), seq: 1, event: { type: "ringing" } }],
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain("call_id");
  });

  it("records a transfer's outcome, and a late 'accepted' does not undo it", async () => {
    const { src } = await trunk();
    const { body: ticket } = await node.admit({ src_ip: src, dialed: "14155550123" });
    const at = new Date().toISOString();
    const event = { type: "transfer", at, target: "15550001111", mode: "refer" };
    await node.event(ticket.call_id, { ...event, status: "completed", code: 200 });
    await node.event(ticket.call_id, { ...event, status: "accepted", code: 202 });
    expect(await callRow(ticket.call_id)).toMatchObject({
      transfer_status: "completed",
      transfer_code: 200,
      transfer_target: "15550001111",
      transfer_mode: "refer",
      transfer_at: at,
    });
    const bad = await node.event(ticket.call_id, { ...event, status: "done", code: 200 });
    expect(bad.status).toBe(422);
  });

  it("keeps the first answer time and codec when an answer is reported twice", async () => {
    const { src } = await trunk();
    const { body: ticket } = await node.admit({ src_ip: src, dialed: "14155550123" });
    const first = new Date(Date.now() + 1_000).toISOString();
    await node.event(ticket.call_id, { type: "answered", at: first, codec: "PCMA" });
    const again = await node.event(ticket.call_id, { type: "answered", at: new Date(Date.now() + 5_000).toISOString() });
    expect(again.body).toMatchObject({ call_id: ticket.call_id, status: "active" });
    expect(await callRow(ticket.call_id)).toMatchObject({ status: "active", answered_at: first, codec: "PCMA" });
  });
});

describe("whitelist snapshot and monitoring", () => {
  it("serves the enabled ranges by version, and nothing new for the current version", async () => {
    const { cidr } = await trunk();
    const snapshot = await node.get("/whitelist");
    expect(snapshot.body.version).toBeTypeOf("number");
    const { start } = (await import("../../../schema/cidr.ts")).parseCidr(cidr) as { start: string };
    expect(snapshot.body.ranges.some((r: { start: string }) => r.start === start)).toBe(true);
    expect(await node.get(`/whitelist?since=${snapshot.body.version}`)).toMatchObject({ body: { version: snapshot.body.version } });
    expect((await node.get(`/whitelist?since=${snapshot.body.version}`)).body.ranges).toBeUndefined();
  });

  it("lists monitored destinations and keeps the results, moving last_change only on a change", async () => {
    const owner = await createAccount();
    const d = await addDestination(owner, { host: "watched.sbc.test", monitor_enabled: true });
    const targets = await node.get("/monitor/destinations");
    expect(targets.body.destinations).toContainEqual({ id: d.id, host: "watched.sbc.test", port: 5060, transport: "udp" });
    const result = (at: string, status: string) => ({ destination_id: d.id, status, at, rtt_ms: 12, code: 200, error: null });
    expect((await node.post("/monitor/results", { results: [result("2026-11-25T10:00:00.000Z", "up")] })).status).toBe(204);
    await node.post("/monitor/results", { results: [result("2026-11-25T10:01:00.000Z", "up")] });
    const [after] = bodyOf(await owner.client.get("/api/customer/destinations"), 200);
    expect(after).toMatchObject({
      monitor_status: "up",
      monitor_rtt_ms: 12,
      monitor_last_code: 200,
      monitor_last_check_at: "2026-11-25T10:01:00.000Z",
      monitor_last_change_at: "2026-11-25T10:00:00.000Z",
    });
  });
});
