// Automation (spec: "Automation and controlled numbers"): rules with their defaults and limits,
// a verdict over a rule's threshold putting the caller's number under control, release, expiry,
// and admission honouring the control.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { OpenAiCompatibleTranscriber } from "../../../worker/providers/transcription/openai-compatible.ts";
import { analyseOnDemand } from "../../../worker/services/analysis/on-demand.ts";
import { runAnalysisJob } from "../../../worker/services/analysis/pipeline.ts";
import { syncLapsedControls } from "../../../worker/services/trunk/automation.ts";
import { endedCall, sampleOut, stereoWav, uploadRecording } from "../fixtures/call.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, principalOf, testServices, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block } from "../fixtures/network.ts";
import { callRow, node } from "../fixtures/node-client.ts";
import { uniqueAni, verdictEvent } from "../fixtures/verdict.ts";
import { expectStatus, firstOf, issuesOf } from "../fixtures/client.ts";

const addRule = async (owner: Session, body: Record<string, unknown> = {}) => {
  const res = await owner.client.post("/api/automation/rules", { name: "Sure scams", ...body });
  expectStatus(res, 201);
  return res.body;
};

const controlsOf = async (owner: Session, query = "") => {
  const res = await owner.client.get(`/api/automation/controls?${query}`);
  expectStatus(res, 200);
  return res.body;
};

const ruleCount = async (owner: Session) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM automation_rules WHERE customer_id = ?").bind(owner.account.id).first<{ n: number }>())!
    .n;

/** Hands a verdict to the listeners exactly as the pipeline does. */
const deliver = async (owner: Session, opts: Parameters<typeof verdictEvent>[1] = {}) => {
  const event = await verdictEvent(owner, opts);
  await testServices().verdicts.deliver(event);
  return event;
};

describe("automation rules", () => {
  it("take the spec's defaults", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner);
    expect(rule).toEqual({
      id: expect.any(String),
      name: "Sure scams",
      enabled: true,
      min_probability: 90,
      recommendations: ["block"],
      identity_statuses: null,
      screening_rules: null,
      action: "block",
      divert_destination_id: null,
      duration_hours: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await owner.client.get("/api/automation/rules")).body).toEqual([rule]);
  });

  it("refuse a divert without a destination (422 naming it) or to an unknown one (404), storing nothing", async () => {
    const owner = await createAccount();
    const missing = await owner.client.post("/api/automation/rules", { name: "Divert", action: "divert" });
    expectStatus(missing, 422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ["body", "divert_destination_id"] });
    expect(issuesOf(missing.body)[0]?.msg).toBe("divert_destination_id is required when action is 'divert'");
    const other = await addDestination(await createAccount());
    const unknown = await owner.client.post("/api/automation/rules", { name: "Divert", action: "divert", divert_destination_id: other.id });
    expect(unknown).toMatchObject({ status: 404, body: { detail: "divert destination not found" } });
    const bad = await owner.client.post("/api/automation/rules", { name: "x", min_probability: 101, recommendations: ["maybe"] });
    expectStatus(bad, 422);
    expect(issuesOf(bad.body).map((d) => d.loc.join("."))).toEqual(
      expect.arrayContaining(["body.min_probability", "body.recommendations.0"]),
    );
    expect(await ruleCount(owner)).toBe(0);
  });

  it("answer 409 past the maximum of 50", async () => {
    const owner = await createAccount();
    const now = new Date().toISOString();
    await env.DB.batch(
      Array.from({ length: 50 }, (_, i) =>
        env.DB.prepare("INSERT INTO automation_rules (id, customer_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").bind(
          crypto.randomUUID(),
          owner.account.id,
          `rule ${i}`,
          now,
          now,
        ),
      ),
    );
    const res = await owner.client.post("/api/automation/rules", { name: "one too many" });
    expect(res).toMatchObject({ status: 409, body: { detail: "Maximum number of automation rules reached" } });
    expect(await ruleCount(owner)).toBe(50);
  });

  it("change in place: a divert needs its destination, clear_duration removes the duration", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner, { duration_hours: 24 });
    const refused = await owner.client.patch(`/api/automation/rules/${rule.id}`, { action: "divert" });
    expectStatus(refused, 422);
    expect(issuesOf(refused.body)[0]?.loc).toEqual(["body", "divert_destination_id"]);
    const honeypot = await addDestination(owner, { label: "Honeypot" });
    const diverting = await owner.client.patch(`/api/automation/rules/${rule.id}`, {
      action: "divert",
      divert_destination_id: honeypot.id,
    });
    expect(diverting.body).toMatchObject({ action: "divert", divert_destination_id: honeypot.id, duration_hours: 24 });
    const foreign = await addDestination(await createAccount());
    expect(await owner.client.patch(`/api/automation/rules/${rule.id}`, { divert_destination_id: foreign.id })).toMatchObject({
      status: 404,
      body: { detail: "divert destination not found" },
    });
    const cleared = await owner.client.patch(`/api/automation/rules/${rule.id}`, { clear_duration: true, min_probability: 75 });
    expect(cleared.body).toMatchObject({ duration_hours: null, min_probability: 75, action: "divert" });
    const blocking = await owner.client.patch(`/api/automation/rules/${rule.id}`, { action: "block" });
    expect(blocking.body).toMatchObject({ action: "block", divert_destination_id: null });
    expect((await owner.client.get("/api/automation/rules")).body).toEqual([blocking.body]);
    const gone = await owner.client.patch(`/api/automation/rules/${crypto.randomUUID()}`, { name: "x" });
    expect(gone).toMatchObject({ status: 404, body: { detail: "automation rule not found" } });
  });

  it("delete with 204, then 404", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner);
    expect((await owner.client.delete(`/api/automation/rules/${rule.id}`)).status).toBe(204);
    expect(await owner.client.delete(`/api/automation/rules/${rule.id}`)).toMatchObject({
      status: 404,
      body: { detail: "automation rule not found" },
    });
  });
});

describe("a verdict over a rule's threshold", () => {
  it("puts the caller's number under control with its rule, reason, call and expiry, once", async () => {
    const owner = await createAccount();
    const rule = await addRule(owner, { duration_hours: 24 });
    const ani = uniqueAni();
    const before = Date.now();
    const event = await deliver(owner, { ani, verdict: { probability: 96 } });
    const list = await controlsOf(owner);
    expect(list).toMatchObject({ total: 1, limit: 50, offset: 0 });
    const control = firstOf(list.items);
    expect(control).toEqual({
      id: expect.any(String),
      ani: ani.replace("+", ""),
      action: "block",
      divert_destination_id: null,
      reason: "Rule 'Sure scams': probability 96, recommendation block (credit_card_scam)",
      expires_at: expect.any(String),
      released_at: null,
      created_at: expect.any(String),
      rule_id: rule.id,
      call_id: event.callId,
    });
    const lasts = Date.parse(control.expires_at ?? "") - before;
    expect(lasts).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(lasts).toBeLessThan(24 * 3_600_000 + 60_000);
    // The same number again while controlled: the first control stands.
    await deliver(owner, { ani, verdict: { probability: 99 } });
    expect((await controlsOf(owner)).total).toBe(1);
  });

  it("below the threshold, with another recommendation, from a disabled rule or without a number, controls nothing", async () => {
    const owner = await createAccount();
    const disabled = await addRule(owner, { min_probability: 10, recommendations: null, enabled: false });
    await addRule(owner);
    await deliver(owner, { ani: uniqueAni(), verdict: { probability: 89 } });
    await deliver(owner, { ani: uniqueAni(), verdict: { probability: 95, recommendation: "review" } });
    await deliver(owner, { ani: null });
    expect((await controlsOf(owner, "include_released=true")).total).toBe(0);
    await owner.client.patch(`/api/automation/rules/${disabled.id}`, { enabled: true });
    await deliver(owner, { ani: uniqueAni(), verdict: { probability: 20, recommendation: "allow" } });
    expect((await controlsOf(owner)).total).toBe(1);
  });

  it("with an empty recommendations list matches any recommendation; a divert rule diverts to its destination", async () => {
    const owner = await createAccount();
    const honeypot = await addDestination(owner, { label: "Honeypot" });
    await addRule(owner, { recommendations: [], min_probability: 60, action: "divert", divert_destination_id: honeypot.id });
    await deliver(owner, { ani: uniqueAni(), verdict: { probability: 61, recommendation: "review" } });
    const [control] = (await controlsOf(owner)).items;
    expect(control).toMatchObject({ action: "divert", divert_destination_id: honeypot.id, expires_at: null });
  });

  it("is acted on from the real pipeline: a job's verdict controls the number of the call it analysed", async () => {
    const placed = await endedCall(undefined, { seconds: 20 });
    const { owner, callId } = placed;
    await addRule(owner, { min_probability: 1, recommendations: null });
    await sampleOut(callId);
    await uploadRecording(callId, stereoWav(20, { caller: "talk", callee: "talk" }));
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      const file = (init!.body as FormData).get("file") as File;
      const text = file.name.startsWith("caller")
        ? "This is the fraud department of your bank. Read me the one time code we sent you, it is urgent."
        : "Okay.";
      return Response.json({ text, language: "en", duration: 20, segments: [{ start: 0, end: 5, text }] });
    });
    const transcriber = new OpenAiCompatibleTranscriber({ baseUrl: "http://transcriber.test/v1", model: "whisper-1", fetch });
    const services = testServices({
      transcriber,
      queues: { analysis: { send: async () => {} } as unknown as Queue<unknown>, deliveries: env.DELIVERY_QUEUE },
    });
    const { job_id } = await analyseOnDemand(services, await principalOf(owner), callId);
    expect(await runAnalysisJob(services, job_id)).toEqual({ outcome: "done" });
    const call = await callRow(callId);
    expect((await controlsOf(owner)).items).toEqual([
      expect.objectContaining({ ani: String(call!.ani).replace("+", ""), call_id: callId, action: "block" }),
    ]);
  });
});

describe("controlled numbers", () => {
  it("release once (then 409), drop out of the default list and stay under include_released", async () => {
    const owner = await createAccount();
    await addRule(owner);
    await deliver(owner, { ani: uniqueAni() });
    const control = firstOf((await controlsOf(owner)).items);
    const released = await owner.client.post(`/api/automation/controls/${control.id}/release`);
    expectStatus(released, 200);
    expect(released.body).toMatchObject({ id: control.id, released_at: expect.any(String) });
    expect(await owner.client.post(`/api/automation/controls/${control.id}/release`)).toMatchObject({
      status: 409,
      body: { detail: "control already released" },
    });
    expect((await controlsOf(owner)).total).toBe(0);
    expect((await controlsOf(owner, "include_released=true")).items).toEqual([released.body]);
    expect(await owner.client.post(`/api/automation/controls/${crypto.randomUUID()}/release`)).toMatchObject({
      status: 404,
      body: { detail: "control not found" },
    });
  });

  it("lapse at expires_at: listed only with include_released, and found by the cron sweep", async () => {
    const owner = await createAccount();
    await addRule(owner, { duration_hours: 1 });
    await deliver(owner, { ani: uniqueAni() });
    const past = new Date(Date.now() - 60_000).toISOString();
    await env.DB.prepare("UPDATE ani_controls SET expires_at = ? WHERE customer_id = ?").bind(past, owner.account.id).run();
    expect((await controlsOf(owner)).total).toBe(0);
    expect((await controlsOf(owner, "include_released=1")).total).toBe(1);
    expect(await syncLapsedControls(testServices(), new Date())).toBeGreaterThanOrEqual(1);
  });

  it("page with limit and offset, newest first, and refuse a limit over 500", async () => {
    const owner = await createAccount();
    await addRule(owner);
    for (let i = 0; i < 3; i++) await deliver(owner, { ani: uniqueAni() });
    const first = await controlsOf(owner, "limit=2");
    expect(first).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(first.items).toHaveLength(2);
    const rest = await controlsOf(owner, "limit=2&offset=2");
    expect(rest.items).toHaveLength(1);
    expect(firstOf(first.items).created_at >= firstOf(rest.items).created_at).toBe(true);
    expect((await owner.client.get("/api/automation/controls?limit=501")).status).toBe(422);
  });

  it("refuse the number's next call at admission, or divert it, until released", async () => {
    const owner = await createAccount();
    const block = v4Block();
    await addWhitelistEntry(owner, block.cidr);
    await addDestination(owner, { is_default: true });
    const honeypot = await addDestination(owner, { label: "Honeypot" });
    const src = `${block.base}.7`;
    await addRule(owner, { min_probability: 95 });
    await addRule(owner, { min_probability: 60, recommendations: ["review"], action: "divert", divert_destination_id: honeypot.id });
    const blockedAni = uniqueAni();
    const divertedAni = uniqueAni();
    await deliver(owner, { ani: blockedAni, verdict: { probability: 97 } });
    await deliver(owner, { ani: divertedAni, verdict: { probability: 70, recommendation: "review" } });

    const refused = await node.admit({ src_ip: src, ani: blockedAni, dialed: "442079460000" });
    expect(refused.body).toMatchObject({ decision: "reject" });
    expect(await callRow(refused.body.call_id)).toMatchObject({ status: "rejected" });
    const diverted = await node.admit({ src_ip: src, ani: divertedAni, dialed: "442079460000" });
    expect(diverted.body).toMatchObject({ decision: "admit", route: "divert", destination: { id: honeypot.id } });

    const blockControl = firstOf(
      (await controlsOf(owner)).items.filter((c) => c.action === "block"),
      "a block control",
    );
    await owner.client.post(`/api/automation/controls/${blockControl.id}/release`);
    const again = await node.admit({ src_ip: src, ani: blockedAni, dialed: "442079460000" });
    expect(again.body).toMatchObject({ decision: "admit" });
    expect(again.body.route).not.toBe("divert");
  });
});
