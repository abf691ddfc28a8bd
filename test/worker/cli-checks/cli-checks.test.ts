// Caller-ID (CLI) checks on the Worker's side: coverage, a check placed through a destination (the
// originate a SIP node gets), what the hosted-number listener reports (node API /internal/cli/*),
// the result, timing and quality, the fee in the ledger once; hosted numbers (enrol, confirm live,
// earn a share, marked down); schedules alerting once when a run's outcome changes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, testServices, type Session } from "../fixtures/factory.ts";
import { node, NODE_ID } from "../fixtures/node-client.ts";
import { accountWithDefaultDestination, fakeNodesClosedAfterEach, reportProgress, untilSent, untilStatus } from "../fixtures/test-call.ts";
import { runDueSchedules } from "../../../worker/services/cli-checks/schedules.ts";

const connect = fakeNodesClosedAfterEach();
const GB_NUMBER = "+442079460000";
const PLATFORM_CALLER_ID = "+18005550100";

const balanceOf = async (owner: Session) => bodyOf(await owner.client.get("/api/customer/balance"), 200).balance;
const ledgerTypes = async (owner: Session) => bodyOf(await owner.client.get("/api/customer/ledger"), 200).items.map((e) => e.type);

/** What the listener posts when an INVITE reaches it. */
const arrive = (fields: Record<string, unknown>) =>
  node.post("/cli/arrivals", {
    node_id: NODE_ID,
    sip_call_id: `${crypto.randomUUID()}@route.test`,
    dialled: GB_NUMBER,
    from_user: PLATFORM_CALLER_ID,
    from_display: null,
    asserted: null,
    privacy: [],
    identity: null,
    src_ip: "192.0.2.50",
    src_port: 5060,
    received_at: new Date().toISOString(),
    ...fields,
  });

async function askCheck(owner: Session, body: Record<string, unknown>) {
  return bodyOf(await owner.client.post("/api/customer/cli/checks", body), 202);
}

const getCheck = async (owner: Session, id: string) => bodyOf(await owner.client.get(`/api/customer/cli/checks/${id}`), 200);

/** A check placed and taken by the fake node: the originate it got. */
async function placedCheck(owner: Session, fake: Awaited<ReturnType<typeof connect>>, body: Record<string, unknown>) {
  const check = await askCheck(owner, body);
  const originate = await untilSent(fake, (c) => c.type === "originate" && c.test_call_id === check.test_call_id);
  await untilStatus(owner, check.test_call_id, "dialing");
  return { check, originate };
}

/** The check's call as the originating node reports it: rings, is answered, ends. */
async function callEnds(testCallId: string, end: Record<string, unknown> = { status: "done", ended_by: "callee" }) {
  await reportProgress(testCallId, { status: "ringing", sip_code: 180, post_dial_ms: 140 });
  await reportProgress(testCallId, { status: "answered", answered: true, sip_code: 200, answer_ms: 900 });
  await reportProgress(testCallId, { mos_received: 4.31, ...end });
}

describe("CLI checks", () => {
  // First in the file: no fake node of an earlier test can still be on the hub.
  it("fails with its fee refunded when no SIP node can place the call", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const check = await askCheck(owner, { destination_id: destination.id, country: "GB" });
    expect(check).toMatchObject({ status: "placing", result: null, fee_usd: 0.05 });
    await untilStatus(owner, check.test_call_id, "failed");
    expect(await getCheck(owner, check.id)).toMatchObject({ status: "failed", result: null, error: "no_sip_node" });
    expect(await balanceOf(owner)).toBe(5);
    expect(await ledgerTypes(owner)).toEqual(expect.arrayContaining(["cli_check", "cli_check_refund"]));
  });

  it("lists the countries with a number that takes checks, and the fee", async () => {
    const owner = await createAccount();
    const coverage = bodyOf(await owner.client.get("/api/customer/cli/coverage"), 200);
    expect(coverage.fee_usd).toBe(0.05);
    expect(coverage.hosted_share_percent).toBe(50);
    expect(coverage.countries).toEqual(
      expect.arrayContaining([
        { country: "GB", numbers: 1, platform_numbers: 1, hosted_numbers: 0 },
        { country: "US", numbers: 1, platform_numbers: 1, hosted_numbers: 0 },
      ]),
    );
  });

  it("places a call through the destination to the held number, and reads match with timing and MOS both ways", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const fake = await connect("cli-node-a");
    const { check, originate } = await placedCheck(owner, fake, { destination_id: destination.id, country: "gb" });
    expect(originate).toMatchObject({ number: GB_NUMBER, speech: "route_test" });
    expect(check).toMatchObject({
      destination_id: destination.id,
      country: "GB",
      sent: { caller_id: PLATFORM_CALLER_ID },
      number_called: GB_NUMBER,
    });

    const arrival = await arrive({ sip_call_id: originate.sip_call_id, from_display: "Carrier" });
    expect(arrival.body).toEqual({ answer: true, arrival_id: check.id, tone_seconds: 3 });
    await callEnds(check.test_call_id);
    const end = {
      node_id: NODE_ID,
      mos: 4.12,
      packets: 150,
      packet_loss_pct: 0,
      jitter_ms: 1.5,
      ended_by: "listener",
      ended_at: new Date().toISOString(),
    };
    expect((await node.post(`/cli/arrivals/${check.id}/end`, end)).status).toBe(204);

    const done = await getCheck(owner, check.id);
    expect(done).toMatchObject({
      status: "completed",
      result: "match",
      change: null,
      received: { from: PLATFORM_CALLER_ID, display_name: "Carrier", asserted: null, privacy: [], identity_present: false },
      post_dial_delay_ms: 140,
      answer_delay_ms: 900,
      mos: { sent: 4.12, received: 4.31 },
    });
    expect(done.completed_at).not.toBeNull();
    // The fee once; a second arrival for the same call changes nothing.
    expect(await balanceOf(owner)).toBe(4.95);
    expect((await arrive({ sip_call_id: originate.sip_call_id, from_user: "999" })).body.answer).toBe(true);
    expect((await getCheck(owner, check.id)).result).toBe("match");
    expect((await ledgerTypes(owner)).filter((t) => t === "cli_check")).toHaveLength(1);
    const list = bodyOf(await owner.client.get(`/api/customer/cli/checks?destination_id=${destination.id}`), 200);
    expect(list.items.map((c) => c.id)).toEqual([check.id]);
  });

  it("reads what a route did to the caller ID: a prefix added, privacy asked for, nothing sent", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const fake = await connect("cli-node-b");
    const cases = [
      { arrived: { from_user: "1010" + PLATFORM_CALLER_ID.slice(1) }, expected: { result: "modified", change: "prefix" } },
      { arrived: { from_user: "008005550100".replace(/^00/, "001") }, expected: { result: "modified", change: "format" } },
      { arrived: { from_user: "+18005550199" }, expected: { result: "modified", change: "digits" } },
      {
        arrived: { from_user: "anonymous", asserted: PLATFORM_CALLER_ID, privacy: ["id"] },
        expected: { result: "withheld", change: null },
      },
      { arrived: { from_user: null }, expected: { result: "missing", change: null } },
    ];
    for (const { arrived, expected } of cases) {
      const { check, originate } = await placedCheck(owner, fake, { destination_id: destination.id, country: "GB" });
      await arrive({ sip_call_id: originate.sip_call_id, ...arrived });
      await callEnds(check.test_call_id);
      const read = await getCheck(owner, check.id);
      expect(read, JSON.stringify(arrived)).toMatchObject({ status: "completed", ...expected });
      if (expected.result === "modified") expect(read.received?.from).toBe(arrived.from_user);
    }
  });

  it("is not_received when the route fails the call, and the fee stays charged", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const fake = await connect("cli-node-c");
    const { check } = await placedCheck(owner, fake, { destination_id: destination.id, country: "US" });
    await reportProgress(check.test_call_id, { status: "failed", sip_code: 404, sip_reason: "Not Found", ended_by: "callee" });
    expect(await getCheck(owner, check.id)).toMatchObject({ status: "completed", result: "not_received", received: null, sip_code: 404 });
    expect(await balanceOf(owner)).toBe(4.95);
  });

  it("refuses what it cannot check, naming the field, with nothing charged", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const uncovered = await owner.client.post("/api/customer/cli/checks", { destination_id: destination.id, country: "JP" });
    expectStatus(uncovered, 422);
    expect(issuesOf(uncovered.body)[0]).toMatchObject({ loc: ["body", "country"], type: "cli_country_not_covered" });
    const malformed = await owner.client.post("/api/customer/cli/checks", { destination_id: destination.id, country: "GBR" });
    expectStatus(malformed, 422);
    expect(issuesOf(malformed.body)[0]!.loc).toEqual(["body", "country"]);
    const unverified = await owner.client.post("/api/customer/cli/checks", {
      destination_id: destination.id,
      country: "GB",
      caller_id: "+14155550177",
    });
    expectStatus(unverified, 422);
    expect(issuesOf(unverified.body)[0]).toMatchObject({ loc: ["body", "caller_id"], type: "caller_id_not_verified" });
    const stranger = await createAccount();
    const theirs = await addDestination(stranger, { host: "theirs.sbc.test" });
    expectStatus(await owner.client.post("/api/customer/cli/checks", { destination_id: theirs.id, country: "GB" }), 404);
    expect(await balanceOf(owner)).toBe(5);
    expect(bodyOf(await owner.client.get("/api/customer/cli/checks"), 200).total).toBe(0);
  });

  it("answers 404 for another account's check", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    await connect("cli-node-d");
    const check = await askCheck(owner, { destination_id: destination.id, country: "GB" });
    const stranger = await createAccount();
    expectStatus(await stranger.client.get(`/api/customer/cli/checks/${check.id}`), 404);
  });

  it("refuses a call to a number the platform does not hold", async () => {
    expect((await arrive({ dialled: "+442079461234" })).body).toEqual({ answer: false, sip_code: 404, reason: "Not Found" });
  });
});

describe("hosted numbers", () => {
  const FR_NUMBER = "+33123456789";

  it("is enrolled, confirmed live by a call, takes a check and earns its holder a share through the ledger", async () => {
    const host = await createAccount();
    const enrolled = bodyOf(
      await host.client.post("/api/customer/hosted-numbers", { number: FR_NUMBER, reach_by: "forwarded by my provider" }),
      201,
    );
    expect(enrolled).toMatchObject({ number: FR_NUMBER, country: "FR", status: "pending", forward_to: `sip:${FR_NUMBER}@127.0.0.1:5090` });
    expect(bodyOf(await host.client.get("/api/customer/cli/coverage"), 200).countries.map((c) => c.country)).not.toContain("FR");

    const testing = bodyOf(await host.client.post(`/api/customer/hosted-numbers/${enrolled.id}/test`), 200);
    expect(testing.awaiting_test_call_until).not.toBeNull();
    expect((await arrive({ dialled: FR_NUMBER, from_user: "+447700900123" })).body).toMatchObject({
      answer: true,
      arrival_id: enrolled.id,
    });
    expect(bodyOf(await host.client.get(`/api/customer/hosted-numbers/${enrolled.id}`), 200)).toMatchObject({
      status: "live",
      awaiting_test_call_until: null,
    });
    expect(bodyOf(await host.client.get("/api/customer/cli/coverage"), 200).countries).toContainEqual({
      country: "FR",
      numbers: 1,
      platform_numbers: 0,
      hosted_numbers: 1,
    });

    const { owner, destination } = await accountWithDefaultDestination();
    const fake = await connect("cli-node-e");
    const { check, originate } = await placedCheck(owner, fake, { destination_id: destination.id, country: "FR" });
    expect(originate.number).toBe(FR_NUMBER);
    expect(check).toMatchObject({ hosted: true, number_called: "+33••••••789" });
    await arrive({ dialled: FR_NUMBER, sip_call_id: originate.sip_call_id });
    await callEnds(check.test_call_id);
    expect(await getCheck(owner, check.id)).toMatchObject({ result: "match", hosted: true });

    expect(await balanceOf(host)).toBe(5.025);
    expect(await ledgerTypes(host)).toContain("hosted_number_share");
    const listed = bodyOf(await host.client.get("/api/customer/hosted-numbers"), 200);
    expect(listed.items).toEqual([expect.objectContaining({ id: enrolled.id, status: "live", checks_answered: 1, earnings_usd: 0.025 })]);
    // The holder's number is theirs alone: another account cannot read it.
    expectStatus(await owner.client.get(`/api/customer/hosted-numbers/${enrolled.id}`), 404);
    expectStatus(await owner.client.post("/api/customer/hosted-numbers", { number: FR_NUMBER }), 409);
  });

  it("is marked down and leaves coverage after three checks it did not receive", async () => {
    const host = await createAccount();
    const number = "+4930123456";
    const enrolled = bodyOf(await host.client.post("/api/customer/hosted-numbers", { number }), 201);
    await host.client.post(`/api/customer/hosted-numbers/${enrolled.id}/test`);
    await arrive({ dialled: number });
    const { owner, destination } = await accountWithDefaultDestination();
    const fake = await connect("cli-node-f");
    for (let miss = 0; miss < 3; miss++) {
      const { check } = await placedCheck(owner, fake, { destination_id: destination.id, country: "DE" });
      await reportProgress(check.test_call_id, { status: "failed", sip_code: 480, ended_by: "timeout" });
      expect((await getCheck(owner, check.id)).result).toBe("not_received");
    }
    expect(bodyOf(await host.client.get(`/api/customer/hosted-numbers/${enrolled.id}`), 200)).toMatchObject({
      status: "down",
      checks_answered: 0,
    });
    const refused = await owner.client.post("/api/customer/cli/checks", { destination_id: destination.id, country: "DE" });
    expectStatus(refused, 422);
  });

  it("refuses a number that is not valid, or in another country than named", async () => {
    const host = await createAccount();
    const invalid = await host.client.post("/api/customer/hosted-numbers", { number: "+4412" });
    expectStatus(invalid, 422);
    expect(issuesOf(invalid.body)[0]!.loc).toEqual(["body", "number"]);
    const elsewhere = await host.client.post("/api/customer/hosted-numbers", { number: "+33123456780", country: "GB" });
    expectStatus(elsewhere, 422);
    expect(issuesOf(elsewhere.body)[0]!.loc).toEqual(["body", "country"]);
    expect(bodyOf(await host.client.get("/api/customer/hosted-numbers"), 200).total).toBe(0);
  });
});

describe("schedules", () => {
  it("runs a check at once and when due, and alerts once through the webhook when the outcome changes", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const fake = await connect("cli-node-g");
    expectStatus(
      await owner.client.put("/api/customer/webhook", {
        url: "https://hooks.carrier.example/cli",
        secret: `whsec_${btoa("0123456789abcdef01234567")}`,
      }),
      200,
    );
    const schedule = bodyOf(
      await owner.client.post("/api/customer/cli/schedules", {
        kind: "cli_check",
        destination_id: destination.id,
        country: "GB",
        every: "hourly",
      }),
      201,
    );
    expect(schedule.last_run_id).not.toBeNull();
    const first = await untilSent(fake, (c) => c.type === "originate" && c.number === GB_NUMBER);
    const firstCheck = await getCheck(owner, schedule.last_run_id!);
    expect(firstCheck.schedule_id).toBe(schedule.id);
    await arrive({ sip_call_id: first.sip_call_id });
    await callEnds(firstCheck.test_call_id);
    expect(bodyOf(await owner.client.get(`/api/customer/cli/schedules/${schedule.id}`), 200)).toMatchObject({
      last_outcome: "match",
      previous_outcome: null,
    });

    // Not due yet: nothing runs; an hour on, the second run.
    await runDueSchedules(testServices(), new Date());
    expect(bodyOf(await owner.client.get(`/api/customer/cli/schedules/${schedule.id}`), 200).last_run_id).toBe(firstCheck.id);
    await runDueSchedules(testServices(), new Date(Date.now() + 3_601_000));
    const second = bodyOf(await owner.client.get(`/api/customer/cli/schedules/${schedule.id}`), 200);
    expect(second.last_run_id).not.toBe(firstCheck.id);
    const secondCheck = await getCheck(owner, second.last_run_id!);
    await untilStatus(owner, secondCheck.test_call_id, "dialing");
    await reportProgress(secondCheck.test_call_id, { status: "failed", sip_code: 503, ended_by: "callee" });
    await reportProgress(secondCheck.test_call_id, { status: "failed", sip_code: 503, ended_by: "callee" });
    expect(bodyOf(await owner.client.get(`/api/customer/cli/schedules/${schedule.id}`), 200)).toMatchObject({
      last_outcome: "not_received",
      previous_outcome: "match",
    });
    const events = await env.DB.prepare("SELECT kind FROM webhook_deliveries WHERE customer_id = ? AND kind = 'schedule.outcome_changed'")
      .bind(owner.account.id)
      .all();
    expect(events.results).toHaveLength(1);
  });

  it("refuses a schedule missing what its kind needs, and keeps none", async () => {
    const { owner, destination } = await accountWithDefaultDestination();
    const noCountry = await owner.client.post("/api/customer/cli/schedules", {
      kind: "cli_check",
      destination_id: destination.id,
      every: "daily",
    });
    expectStatus(noCountry, 422);
    expect(issuesOf(noCountry.body)[0]!.loc).toEqual(["body", "country"]);
    const noNumber = await owner.client.post("/api/customer/cli/schedules", {
      kind: "test_call",
      destination_id: destination.id,
      every: "daily",
    });
    expectStatus(noNumber, 422);
    expect(issuesOf(noNumber.body)[0]!.loc).toEqual(["body", "number"]);
    expect(bodyOf(await owner.client.get("/api/customer/cli/schedules"), 200).total).toBe(0);
  });
});
