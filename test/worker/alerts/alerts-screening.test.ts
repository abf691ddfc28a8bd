// Rules on the screening (issue 32): alert and automation rules take identity_statuses and
// screening_rules (a value outside the contract: 422 naming it, nothing stored); an alert rule
// with trigger screening alerts when a call's record arrives flagged, before any verdict, once per
// throttle window however many calls a flood brings; fraud rules and automation rules with those
// conditions act only on verdicts of calls that meet them.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { alertsForScreening } from "../../../worker/services/alerts/alerts.ts";
import type { VerdictEvent } from "../../../worker/services/analysis/verdicts.ts";
import { syncAdmissionState } from "../../../worker/services/trunk/admission-state.ts";
import { insertCall } from "../fixtures/call-record.ts";
import { deliveryServices } from "../fixtures/delivery.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, testServices, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { node } from "../fixtures/node-client.ts";
import { uniqueAni, verdictEvent } from "../fixtures/verdict.ts";
import { bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";

const addAlertRule = async (owner: Session, body: Record<string, unknown>) => {
  const res = await owner.client.post("/api/customer/alert-rules", { name: "Screening", ...body });
  expectStatus(res, 201);
  return res.body;
};

const flood = (n: number) => ({
  identity: null,
  flags: [{ rule: "calls_per_minute", detail: `${n} calls in a minute from +14155550100`, action: "refuse" }],
  action: "refuse",
  rule: "calls_per_minute",
});

/** A call as admission recorded it, in D1, and the record the call-records queue carried. */
async function screenedCall(owner: Session, columns: Record<string, unknown>) {
  const row = await insertCall(owner, { status: "rejected", answered_at: null, billsec: 0, sip_code: 603, ...columns });
  return {
    id: row.id,
    customerId: owner.account.id,
    attestation: (columns.attestation as string) ?? null,
    identityStatus: (columns.identity_status as string) ?? null,
    identityReason: (columns.identity_reason as string) ?? null,
    screening: (columns.screening as Record<string, unknown>) ?? null,
  };
}

const deliveriesOf = async (ruleId: string) =>
  (
    await env.DB.prepare("SELECT status FROM alert_deliveries WHERE rule_id = ? AND channel_id IS NULL ORDER BY created_at, rowid")
      .bind(ruleId)
      .all<{
        status: string;
      }>()
  ).results.map((r) => r.status);

/** The event of a verdict for a call whose screening (on its row too) is as given. */
async function screenedVerdict(owner: Session, screening: NonNullable<VerdictEvent["call"]["screening"]>, probability = 60) {
  const { attestation, identity_status, identity_reason } = screening;
  const event = await verdictEvent(owner, {
    ani: uniqueAni(),
    verdict: { probability, recommendation: "review" },
    call: { attestation, identity_status, identity_reason, screening: screening.screening },
  });
  return { ...event, call: { ...event.call, screening } };
}

const FAILED = { attestation: "A" as const, identity_status: "failed" as const, identity_reason: "bad_signature", screening: null };
const VERIFIED = { attestation: "A" as const, identity_status: "verified" as const, identity_reason: null, screening: null };

describe("alert rules on the screening", () => {
  it("take identity_statuses and screening_rules, kept once each; an empty list is no condition", async () => {
    const owner = await createAccount();
    const rule = await addAlertRule(owner, {
      trigger: "screening",
      identity_statuses: ["failed", "absent", "failed"],
      screening_rules: ["calls_per_minute", "sequential_dialling"],
    });
    expect(rule).toMatchObject({
      trigger: "screening",
      identity_statuses: ["failed", "absent"],
      screening_rules: ["calls_per_minute", "sequential_dialling"],
    });
    const changed = await owner.client.patch(`/api/customer/alert-rules/${rule.id}`, { identity_statuses: [] });
    expectStatus(changed, 200);
    expect(changed.body).toMatchObject({ identity_statuses: null, screening_rules: ["calls_per_minute", "sequential_dialling"] });
  });

  it("refuse a rule or status outside the contract, naming the field, storing nothing", async () => {
    const owner = await createAccount();
    const badRule = await owner.client.post("/api/customer/alert-rules", {
      name: "x",
      trigger: "screening",
      screening_rules: ["too_many_calls"],
    });
    expectStatus(badRule, 422);
    expect(issuesOf(badRule.body)[0]).toMatchObject({ loc: ["body", "screening_rules", 0] });
    expect(issuesOf(badRule.body)[0]!.msg).toMatch(/^screening_rules must be screening rule names: invalid_caller_id, /);
    const badStatus = await owner.client.post("/api/customer/alert-rules", { name: "x", identity_statuses: ["spoofed"] });
    expectStatus(badStatus, 422);
    expect(issuesOf(badStatus.body)[0]).toMatchObject({ loc: ["body", "identity_statuses", 0] });
    const stored = await env.DB.prepare("SELECT COUNT(*) AS n FROM alert_rules WHERE customer_id = ?")
      .bind(owner.account.id)
      .first<{ n: number }>();
    expect(stored!.n).toBe(0);
  });

  it("with trigger screening: a velocity flood's refused calls alert once in the throttle window, before any verdict", async () => {
    const owner = await createAccount();
    const rule = await addAlertRule(owner, {
      trigger: "screening",
      screening_rules: ["calls_per_minute"],
      throttle_minutes: 60,
      recipients: ["noc@carrier.test"],
    });
    const identityOnly = await addAlertRule(owner, { name: "Failed caller IDs", trigger: "screening", identity_statuses: ["failed"] });
    const fraudOnly = await addAlertRule(owner, { name: "Verdicts", min_probability: 0 });
    const calls = [];
    for (let n = 31; n < 36; n++) calls.push(await screenedCall(owner, { screening: flood(n) }));
    const quiet = await screenedCall(owner, {
      identity_status: "verified",
      attestation: "A",
      screening: { identity: null, flags: [], action: null, rule: null },
    });
    const { services, mail, drain } = deliveryServices();
    await alertsForScreening(services, [...calls, quiet]);
    await drain();
    expect(mail.sent).toHaveLength(1);
    expect(mail.sent[0]!.to).toEqual(["noc@carrier.test"]);
    expect(mail.sent[0]!.subject).toBe("[Call Shield] Screening alert: calls_per_minute (refuse) from +14155550100");
    expect(mail.sent[0]!.text).toContain(
      "Screening before answer:\n- calls_per_minute (refuse): 31 calls in a minute from +14155550100\nAdmission: refuse by calls_per_minute",
    );
    expect(await deliveriesOf(rule.id)).toEqual(["sent", "throttled", "throttled", "throttled", "throttled"]);
    // Neither a rule on failed caller IDs nor a fraud rule speaks for these calls.
    expect(await deliveriesOf(identityOnly.id)).toEqual([]);
    expect(await deliveriesOf(fraudOnly.id)).toEqual([]);
    // The same records handed on again (a redelivered batch): nothing more.
    await alertsForScreening(services, calls);
    await drain();
    expect(mail.sent).toHaveLength(1);
  });

  it("with trigger screening and an identity condition: a call whose caller ID failed verification", async () => {
    const owner = await createAccount();
    const rule = await addAlertRule(owner, { trigger: "screening", identity_statuses: ["failed"] });
    const failed = await screenedCall(owner, {
      identity_status: "failed",
      identity_reason: "stale_iat",
      attestation: "B",
      screening: { identity: null, flags: [], action: null, rule: null },
    });
    const absent = await screenedCall(owner, { identity_status: "absent" });
    const { services, mail, drain } = deliveryServices();
    await alertsForScreening(services, [failed, absent]);
    await drain();
    expect(mail.sent.map((m) => m.subject)).toEqual(["[Call Shield] Screening alert: caller ID failed from +14155550100"]);
    expect(mail.sent[0]!.text).toContain("Caller ID: failed (stale_iat), attestation B");
    expect(await deliveriesOf(rule.id)).toEqual(["sent"]);
  });

  it("with a fraud trigger and an identity condition: only verdicts of calls that meet it", async () => {
    const owner = await createAccount();
    const rule = await addAlertRule(owner, { min_probability: 50, identity_statuses: ["failed"] });
    const { services, mail, drain } = deliveryServices();
    await services.verdicts.deliver(await screenedVerdict(owner, VERIFIED));
    await services.verdicts.deliver(await verdictEvent(owner, { ani: uniqueAni(), verdict: { probability: 60 } }));
    expect(await deliveriesOf(rule.id)).toEqual([]);
    await services.verdicts.deliver(await screenedVerdict(owner, FAILED));
    await drain();
    expect(mail.sent).toHaveLength(1);
    expect(mail.sent[0]!.text).toContain("Caller ID: failed (bad_signature), attestation A");
  });
});

describe("a screening alert rule through admission and the call-records queue", () => {
  it("a flood from one caller ID refused from the threshold on alerts once; another caller ID's call does not", async () => {
    const owner = await createAccount();
    const block = v4Block();
    await addWhitelistEntry(owner, block.cidr);
    await addDestination(owner, { is_default: true });
    await env.DB.prepare("UPDATE customers SET ports_override = 100 WHERE id = ?").bind(owner.account.id).run();
    await syncAdmissionState(testServices(), owner.account.id);
    await env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(owner.account.id)).credit({
      entryId: "topup",
      type: "topup",
      amountMicros: 100_000_000,
      createdAt: new Date().toISOString(),
    });
    expectStatus(
      await owner.client.put("/api/customer/screening/rules", { rules: { calls_per_minute: { action: "refuse", threshold: 3 } } }),
      200,
    );
    const rule = await addAlertRule(owner, { trigger: "screening", screening_rules: ["calls_per_minute"], throttle_minutes: 60 });
    const admit = (ani: string, i: number) => node.admit({ src_ip: `${block.base}.9`, ani, dialed: `1415555${1000 + i}` });
    const replies = [];
    for (let i = 0; i < 8; i++) replies.push(await admit("+12025550100", i));
    expect(replies.map((r) => r.body.decision)).toEqual(["admit", "admit", "admit", "reject", "reject", "reject", "reject", "reject"]);
    expect((await admit("+12025550111", 99)).body.decision).toBe("admit");

    // The records reach D1 through the queue; each refused call is claimed for the rule, one alert in the window.
    await expect.poll(async () => (await deliveriesOf(rule.id)).length, { timeout: 10_000, interval: 100 }).toBe(5);
    await new Promise((r) => setTimeout(r, 300)); // and no more: the other caller ID's call was flagged by nothing
    const statuses = await deliveriesOf(rule.id);
    expect(statuses).toHaveLength(5);
    expect(statuses.filter((st) => st !== "throttled")).toHaveLength(1);
    expect(statuses.filter((st) => st === "throttled")).toHaveLength(4);
  });
});

describe("automation rules on the screening", () => {
  it("take the conditions and refuse bad ones (422 naming the field)", async () => {
    const owner = await createAccount();
    const res = await owner.client.post("/api/automation/rules", {
      name: "Spoofed",
      identity_statuses: ["failed"],
      screening_rules: ["caller_id_equals_dialled"],
    });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ identity_statuses: ["failed"], screening_rules: ["caller_id_equals_dialled"] });
    const bad = await owner.client.patch(`/api/automation/rules/${res.body.id}`, { screening_rules: ["nope"] });
    expectStatus(bad, 422);
    expect(issuesOf(bad.body)[0]).toMatchObject({ loc: ["body", "screening_rules", 0] });
    expect(bodyOf(await owner.client.get("/api/automation/rules"), 200)[0]).toMatchObject({
      screening_rules: ["caller_id_equals_dialled"],
    });
  });

  it("control a caller only when the verdict's call meets them, saying why", async () => {
    const owner = await createAccount();
    await owner.client.post("/api/automation/rules", {
      name: "Failed and equal",
      min_probability: 50,
      recommendations: null,
      identity_statuses: ["failed"],
      screening_rules: ["caller_id_equals_dialled"],
    });
    const services = testServices();
    const equal = { rule: "caller_id_equals_dialled", detail: "the caller ID is the number dialled", action: "flag" as const };
    // Failed but not flagged, then flagged but verified: no control.
    await services.verdicts.deliver(await screenedVerdict(owner, FAILED));
    await services.verdicts.deliver(
      await screenedVerdict(owner, { ...VERIFIED, screening: { identity: null, flags: [equal], action: null, rule: null } }),
    );
    expect(bodyOf(await owner.client.get("/api/automation/controls"), 200).items).toEqual([]);
    const both = await screenedVerdict(owner, { ...FAILED, screening: { identity: null, flags: [equal], action: null, rule: null } });
    await services.verdicts.deliver(both);
    const controls = bodyOf(await owner.client.get("/api/automation/controls"), 200).items;
    expect(controls).toHaveLength(1);
    expect(controls[0]).toMatchObject({ call_id: both.callId, action: "block" });
    expect(controls[0]!.reason).toBe(
      "Rule 'Failed and equal': probability 60, recommendation review (credit_card_scam); screening: caller ID failed, caller_id_equals_dialled",
    );
  });
});
