// Screening at admission, each rule through the node API as the SIP node calls it: the number
// checks, the attestation checks and the velocity rules, flag / refuse (603, reason
// screening:<rule>) / divert, the result on the call's record (D1's screening, attestation,
// identity_status, identity_reason), the counts per rule, the breach alerted once, and the
// velocity counters exact under many admissions at once.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, testServices, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { callRow, node, type NodeReply } from "../fixtures/node-client.ts";
import { syncAdmissionState } from "../../../worker/services/trunk/admission-state.ts";

// Caller and dialled numbers in different area codes, both valid: no number check matches them.
const CALLER = "+12025550100";
const DIALLED = "14155550123";

type Trunk = { owner: Session; src: string; fallback: { id: string } };

/** An account with a whitelisted /24, a default destination, 100 ports and credit; calls come from .9. */
async function trunk(): Promise<Trunk> {
  const owner = await createAccount();
  const block = v4Block();
  await addWhitelistEntry(owner, block.cidr);
  const fallback = await addDestination(owner, { is_default: true, label: "Default" });
  await env.DB.prepare("UPDATE customers SET ports_override = 100 WHERE id = ?").bind(owner.account.id).run();
  await syncAdmissionState(testServices(), owner.account.id);
  await env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(owner.account.id)).credit({
    entryId: "topup",
    type: "topup",
    amountMicros: 100_000_000,
    createdAt: new Date().toISOString(),
  });
  return { owner, src: `${block.base}.9`, fallback };
}

const setRules = async (owner: Session, rules: Record<string, unknown>) =>
  bodyOf(await owner.client.put("/api/customer/screening/rules", { rules }), 200);

const admit = (t: Trunk, ani: string | null, dialed = DIALLED, extra: Record<string, unknown> = {}) =>
  node.admit({ src_ip: t.src, ani, dialed, ...extra });

/** The call's screening as D1 holds it. */
async function screeningOf(reply: NodeReply) {
  const row = await callRow(reply.body.call_id);
  return JSON.parse(row!.screening) as {
    flags: Array<{ rule: string; action: string; detail: string }>;
    action: string | null;
    rule: string | null;
  };
}
const rulesFlagged = async (reply: NodeReply) => (await screeningOf(reply)).flags.map((f) => f.rule);

const expectRefused = (reply: NodeReply, rule: string) =>
  expect(reply.body, JSON.stringify(reply.body)).toMatchObject({ decision: "reject", sip_code: 603, reason: `screening:${rule}` });

const statsOf = async (owner: Session) =>
  Object.fromEntries(bodyOf(await owner.client.get("/api/customer/screening/stats"), 200).rules.map((r) => [r.rule, r]));

const identity = (over: Record<string, unknown> = {}) => ({
  status: "verified",
  reason: null,
  attestation: "A",
  orig_tn: CALLER.slice(1),
  dest_tn: [DIALLED],
  iat: Math.floor(Date.now() / 1000),
  origid: crypto.randomUUID(),
  x5u: "https://cert.carrier.test/sti.pem",
  verstat: null,
  ...over,
});

describe("number checks", () => {
  it("pass a plain call with nothing flagged, and keep the attestation on its record", async () => {
    const t = await trunk();
    const ok = await admit(t, CALLER, DIALLED, { identity: identity() });
    expect(ok.body.decision).toBe("admit");
    const row = await callRow(ok.body.call_id);
    expect(row).toMatchObject({ attestation: "A", identity_status: "verified", identity_reason: null });
    expect(JSON.parse(row!.screening)).toEqual({
      identity: identity({ origid: expect.any(String), iat: expect.any(Number) }),
      flags: [],
      action: null,
      rule: null,
    });
  });

  it("flag an impossible or invalid caller ID, and refuse it when set to", async () => {
    const t = await trunk();
    const flagged = await admit(t, "+15551234567");
    expect(flagged.body.decision).toBe("admit");
    expect(await screeningOf(flagged)).toMatchObject({
      flags: [
        { rule: "invalid_caller_id", action: "flag", detail: "caller ID +15551234567 is not a number in service in any numbering plan" },
      ],
      action: null,
    });
    expect(await rulesFlagged(await admit(t, "12"))).toEqual(["invalid_caller_id"]);
    // A withheld caller ID is not judged by number.
    expect(await rulesFlagged(await admit(t, null))).toEqual([]);
    await setRules(t.owner, { invalid_caller_id: { action: "refuse" } });
    const refused = await admit(t, "+15551234567");
    expectRefused(refused, "invalid_caller_id");
    expect(await callRow(refused.body.call_id)).toMatchObject({
      status: "rejected",
      sip_code: 603,
      end_reason: "screening:invalid_caller_id",
    });
    expect(await screeningOf(refused)).toMatchObject({ action: "refuse", rule: "invalid_caller_id" });
  });

  it("refuse a caller ID equal to the number dialled", async () => {
    const t = await trunk();
    await setRules(t.owner, { caller_id_equals_dialled: { action: "refuse" } });
    expectRefused(await admit(t, `+${DIALLED}`), "caller_id_equals_dialled");
    expect((await admit(t, CALLER)).body.decision).toBe("admit");
  });

  it("flag neighbour spoofing: the same NANP area code and exchange, elsewhere all but the last 4 digits", async () => {
    const t = await trunk();
    const nanp = await admit(t, "+14155550188", "14155550123");
    expect(await screeningOf(nanp)).toMatchObject({
      flags: [
        { rule: "neighbour_spoofing", detail: "caller ID +14155550188 shares area code and exchange +1 415555 with the number dialled" },
      ],
    });
    expect(await rulesFlagged(await admit(t, "+14155560188", "14155550123"))).toEqual([]);
    expect(await rulesFlagged(await admit(t, "+442079461234", "442079460000"))).toEqual(["neighbour_spoofing"]);
    expect(await rulesFlagged(await admit(t, "+442079471234", "442079460000"))).toEqual([]);
  });

  it("refuse a caller ID on the do-not-originate list", async () => {
    const t = await trunk();
    bodyOf(await t.owner.client.post("/api/customer/screening/do-not-originate", { number: CALLER }), 201);
    expect(await rulesFlagged(await admit(t, CALLER.slice(1)))).toEqual(["do_not_originate"]);
    await setRules(t.owner, { do_not_originate: { action: "refuse" } });
    expectRefused(await admit(t, CALLER), "do_not_originate");
    expect((await admit(t, "+12025550199")).body.decision).toBe("admit");
  });
});

describe("attestation checks", () => {
  it("flag a failed PASSporT, with its reason on the record", async () => {
    const t = await trunk();
    const failed = await admit(t, CALLER, DIALLED, { identity: identity({ status: "failed", reason: "bad_signature" }) });
    expect(failed.body.decision).toBe("admit");
    expect(await callRow(failed.body.call_id)).toMatchObject({
      attestation: "A",
      identity_status: "failed",
      identity_reason: "bad_signature",
    });
    expect(await screeningOf(failed)).toMatchObject({
      flags: [{ rule: "identity_failed", action: "flag", detail: "the caller ID's PASSporT failed verification (bad_signature)" }],
    });
  });

  it("divert a call an upstream carrier reported TN-Validation-Failed", async () => {
    const t = await trunk();
    const honeypot = await addDestination(t.owner, { label: "Honeypot" });
    await setRules(t.owner, { verstat_failed: { action: "divert", divert_destination_id: honeypot.id } });
    const diverted = await admit(t, CALLER, DIALLED, {
      identity: identity({ status: "absent", attestation: null, verstat: "TN-Validation-Failed" }),
    });
    expect(diverted.body).toMatchObject({ decision: "admit", route: "divert", destination: { id: honeypot.id } });
    expect(await screeningOf(diverted)).toMatchObject({ action: "divert", rule: "verstat_failed" });
    const passed = await admit(t, CALLER, DIALLED, { identity: identity({ verstat: "TN-Validation-Passed" }) });
    expect(passed.body.destination.id).toBe(t.fallback.id);
  });

  it("refuse an unverified domestic caller ID when set to, but not a verified one or a foreign one", async () => {
    const t = await trunk();
    await setRules(t.owner, { unverified_domestic: { action: "refuse" } });
    expectRefused(await admit(t, CALLER, DIALLED, { identity: identity({ status: "absent", attestation: null }) }), "unverified_domestic");
    // A node that reads no Identity header sends no facts: unverified.
    const unread = await admit(t, CALLER);
    expectRefused(unread, "unverified_domestic");
    expect(await callRow(unread.body.call_id)).toMatchObject({ attestation: null, identity_status: null });
    expect((await admit(t, CALLER, DIALLED, { identity: identity() })).body.decision).toBe("admit");
    expect((await admit(t, "+442079460000")).body.decision).toBe("admit");
  });

  it("refuse beats divert beats flag", async () => {
    const t = await trunk();
    const honeypot = await addDestination(t.owner, { label: "Honeypot" });
    await setRules(t.owner, {
      identity_failed: { action: "divert", divert_destination_id: honeypot.id },
      verstat_failed: { action: "refuse" },
    });
    const both = await admit(t, "+15551234567", DIALLED, {
      identity: identity({ status: "failed", reason: "stale_iat", verstat: "TN-Validation-Failed" }),
    });
    expectRefused(both, "verstat_failed");
    expect(await screeningOf(both)).toMatchObject({
      flags: [
        { rule: "invalid_caller_id", action: "flag" },
        { rule: "identity_failed", action: "divert" },
        { rule: "verstat_failed", action: "refuse" },
      ],
      action: "refuse",
      rule: "verstat_failed",
    });
  });
});

describe("velocity rules", () => {
  it("calls per minute: exact under many admissions at once, per caller ID, counted and alerted once", async () => {
    const t = await trunk();
    expectStatus(
      await t.owner.client.put("/api/customer/webhook", {
        url: "https://hooks.carrier.example/screening",
        secret: `whsec_${btoa("0123456789abcdef01234567")}`,
      }),
      200,
    );
    await setRules(t.owner, { calls_per_minute: { action: "refuse", threshold: 5 } });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => admit(t, CALLER, `1415555${String(1000 + i * 7)}`)));
    expect(replies.filter((r) => r.body.decision === "admit")).toHaveLength(5);
    const refused = replies.filter((r) => r.body.decision === "reject");
    expect(refused).toHaveLength(15);
    refused.forEach((r) => expectRefused(r, "calls_per_minute"));
    expect((await screeningOf(refused[0]!)).flags[0]?.detail).toMatch(/^\d+ calls in a minute from \+12025550100$/);
    // Another caller ID is counted apart.
    expect((await admit(t, "+12025550111")).body.decision).toBe("admit");
    expect((await statsOf(t.owner)).calls_per_minute).toMatchObject({ refused: 15, flagged: 0, diverted: 0, last_at: expect.any(String) });

    const deliveries = async () =>
      (
        await env.DB.prepare("SELECT payload FROM webhook_deliveries WHERE customer_id = ? AND kind = 'screening.breach'")
          .bind(t.owner.account.id)
          .all<{ payload: string }>()
      ).results;
    for (let i = 0; i < 100 && (await deliveries()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    const alerted = await deliveries();
    expect(alerted).toHaveLength(1);
    expect(JSON.parse(alerted[0]!.payload)).toMatchObject({
      type: "screening.breach",
      data: {
        rule: "calls_per_minute",
        scope: "caller_id",
        key: CALLER,
        action: "refuse",
        detail: "6 calls in a minute from +12025550100",
      },
    });
  });

  it("calls per minute by dialled prefix counts only numbers under the prefix", async () => {
    const t = await trunk();
    await setRules(t.owner, { calls_per_minute: { action: "refuse", threshold: 2, scope: "dialled_prefix", prefix: "1900" } });
    const premium = [];
    for (let i = 0; i < 3; i++) premium.push(await admit(t, `+1202555${String(1000 + i)}`, `1900555${String(1000 + i)}`));
    expect(premium.map((r) => r.body.decision)).toEqual(["admit", "admit", "reject"]);
    expect((await screeningOf(premium[2]!)).flags[0]?.detail).toBe("3 calls in a minute from numbers starting 1900");
    expect((await admit(t, CALLER, DIALLED)).body.decision).toBe("admit");
  });

  it("concurrent calls: from the live calls, a call ended frees its place", async () => {
    const t = await trunk();
    await setRules(t.owner, { concurrent_calls: { action: "refuse", threshold: 2, scope: "source" } });
    const first = await admit(t, CALLER);
    const second = await admit(t, "+12025550111");
    expect([first.body.decision, second.body.decision]).toEqual(["admit", "admit"]);
    const third = await admit(t, "+12025550122");
    expectRefused(third, "concurrent_calls");
    expect((await screeningOf(third)).flags[0]?.detail).toBe(`3 calls at once from source ${t.src}`);
    await node.event(first.body.call_id, {
      type: "ended",
      at: new Date(Date.now() + 30_000).toISOString(),
      answered_at: null,
      sip_code: 487,
      hangup_by: "caller",
    });
    expect((await admit(t, "+12025550122")).body.decision).toBe("admit");
  });

  it("distinct numbers per hour: a number dialled again is not counted twice", async () => {
    const t = await trunk();
    await setRules(t.owner, { distinct_numbers_per_hour: { action: "refuse", threshold: 3 } });
    const dialled = ["14155550101", "14155550202", "14155550101", "14155550303"];
    for (const number of dialled) expect((await admit(t, CALLER, number)).body.decision).toBe("admit");
    const fourth = await admit(t, CALLER, "14155550404");
    expectRefused(fourth, "distinct_numbers_per_hour");
    expect((await screeningOf(fourth)).flags[0]?.detail).toBe("4 distinct numbers dialled in an hour from +12025550100");
    expect((await admit(t, "+12025550111", "14155550404")).body.decision).toBe("admit");
  });

  it("sequential dialling: a run of consecutive numbers past the threshold, broken by any other number", async () => {
    const t = await trunk();
    const honeypot = await addDestination(t.owner, { label: "Honeypot" });
    await setRules(t.owner, { sequential_dialling: { action: "divert", threshold: 3, divert_destination_id: honeypot.id } });
    const run = [];
    for (const n of [4155550100, 4155550101, 4155550102, 4155550103]) run.push(await admit(t, CALLER, `1${n}`));
    expect(run.map((r) => r.body.route)).toEqual(["default", "default", "default", "divert"]);
    expect((await screeningOf(run[3]!)).flags[0]?.detail).toBe("4 consecutive numbers dialled from +12025550100");
    expect((await admit(t, CALLER, "14155550777")).body.route).toBe("default");
    expect((await admit(t, CALLER, "14155550778")).body.route).toBe("default");
    expect((await statsOf(t.owner)).sequential_dialling).toMatchObject({ diverted: 1, refused: 0 });
  });

  it("short-call share: once min_calls have ended, over the threshold of them short", async () => {
    const t = await trunk();
    await setRules(t.owner, { short_call_share: { action: "refuse", threshold: 50, min_calls: 3, short_seconds: 6 } });
    const end = (callId: string, afterSeconds: number) =>
      node.event(callId, {
        type: "ended",
        at: new Date(Date.now() + afterSeconds * 1000).toISOString(),
        answered_at: null,
        sip_code: 487,
        hangup_by: "caller",
      });
    const calls = [];
    for (let i = 0; i < 3; i++) calls.push(await admit(t, CALLER, `1415555${String(2000 + i * 11)}`));
    await end(calls[0]!.body.call_id, 2);
    await end(calls[1]!.body.call_id, 2);
    // Two ended, under min_calls: not judged yet.
    expect((await admit(t, CALLER, "14155553000")).body.decision).toBe("admit");
    await end(calls[2]!.body.call_id, 40);
    const judged = await admit(t, CALLER, "14155553100");
    expectRefused(judged, "short_call_share");
    expect((await screeningOf(judged)).flags[0]?.detail).toBe("67% of the last hour's 3 calls from +12025550100 ended within 6 seconds");
    expect((await admit(t, "+12025550111", "14155553200")).body.decision).toBe("admit");
  });

  it("flag by default, counted per rule, the call admitted", async () => {
    const t = await trunk();
    const replies = [];
    for (let i = 0; i < 12; i++) replies.push(await admit(t, CALLER, `1415555${String(4000 + i)}`));
    expect(replies.every((r) => r.body.decision === "admit")).toBe(true);
    expect(await rulesFlagged(replies[11]!)).toEqual(["concurrent_calls", "sequential_dialling"]);
    expect(await statsOf(t.owner)).toMatchObject({
      concurrent_calls: { flagged: 2, refused: 0 },
      sequential_dialling: { flagged: 2, refused: 0 },
      calls_per_minute: { flagged: 0 },
    });
  });
});
