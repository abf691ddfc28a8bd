// Verified caller IDs (our extension): adding a number makes the platform call it and speak a
// six-digit code (a test call of purpose verify, sent to a SIP node as an originate); the owner
// enters the code. Only a hash of the code is kept; wrong codes and calls are limited; a number
// belongs to one account.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, latestMailTo, type Session } from "../fixtures/factory.ts";
import { node } from "../fixtures/node-client.ts";
import { fakeNodesClosedAfterEach, uniqueNumber, untilSent, verifyNumber, type FakeNode } from "../fixtures/test-call.ts";
import { bodyOf, expectStatus, firstOf, issuesOf } from "../fixtures/client.ts";

const connect = fakeNodesClosedAfterEach();

async function readyAccount() {
  const owner = await createAccount();
  const destination = await addDestination(owner, { is_default: true });
  return { owner, destination };
}

const numberRows = async (customerId: string) =>
  (await env.DB.prepare("SELECT * FROM verified_numbers WHERE customer_id = ?").bind(customerId).all<Record<string, any>>()).results;

/** The code of the newest verification call to `number` the node was sent. */
const codeSentTo = async (fake: FakeNode, number: string, after = 0) =>
  (await untilSent(fake, (c) => c.type === "originate" && c.number === number && fake.seen.indexOf(c) >= after)).code as string;

const add = (owner: Session, number: string) => owner.client.post("/api/customer/verified-numbers", { number });
const verify = (owner: Session, id: string, code: string) => owner.client.post(`/api/customer/verified-numbers/${id}/verify`, { code });

describe("POST /api/customer/verified-numbers", () => {
  it("calls the number on the platform's own route and speaks a six-digit code, keeping only its hash", async () => {
    const { owner } = await readyAccount();
    const fake = await connect("vn-node-a");
    const number = uniqueNumber();
    const res = await add(owner, number);
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      number,
      label: null,
      verified: false,
      verified_at: null,
      verification_method: null,
      attempts_left: 5,
    });
    expect(Date.parse(res.body.code_expires_at ?? "") - Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(599_000);

    const originate = await untilSent(fake, (c) => c.type === "originate" && c.number === number);
    expect(originate).toMatchObject({ speech: "verification_code", caller_id: "+18005550100", seconds: 20 });
    expect(originate.code).toMatch(/^[0-9]{6}$/);
    const [call] = bodyOf(await owner.client.get("/api/customer/test-calls"), 200);
    expect(call).toMatchObject({ id: originate.test_call_id, purpose: "verify", speech: "verification_code", destination_id: null });

    const [row] = await numberRows(owner.account.id);
    expect(row!.verification_code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(originate.code);
  });

  it("a verification call never reaches the account's destination and leaves nothing the account can read", async () => {
    // The attack of issue 26: an account points its default destination at its own SIP answerer
    // and reads the code from the RTP, or from the verification call's recording.
    const { owner, destination } = await readyAccount();
    const fake = await connect("vn-node-attack");
    const number = uniqueNumber();
    const added = await add(owner, number);
    expectStatus(added, 201);
    const originate = await untilSent(fake, (c) => c.type === "originate" && c.number === number);
    const admit = await node.post("/calls/admit", {
      node_id: "vn-node-attack",
      boot_id: "boot-1",
      origin: "test",
      test_call_id: originate.test_call_id,
      sip_call_id: originate.sip_call_id,
      src_ip: "127.0.0.1",
      ani: "+18005550100",
      dialed: number,
    });
    expectStatus(admit, 200);
    expect(admit.body).toMatchObject({
      decision: "admit",
      route: "forced",
      destination: { id: "platform-verify-route", host: "verify.platform.test", port: 5070, transport: "tcp", auth: null },
      processing: "relay_only",
      call_record: false,
      ani: "+18005550100",
    });
    expect(admit.body.destination.host).not.toBe(destination.host);
    expect(admit.body.account_assertion).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    // The node reports the call's progress as it goes: the test call shows no call, and GET /calls has none.
    const progress = (status: string, extra: Record<string, unknown> = {}) =>
      node.post(`/test-calls/${originate.test_call_id}/progress`, {
        node_id: "vn-node-attack",
        at: new Date().toISOString(),
        status,
        call_id: admit.body.call_id,
        ...extra,
      });
    expect((await progress("answered", { answered: true, sip_code: 200 })).status).toBe(200);
    expect((await progress("done", { answered: true, sip_code: 200, talk_seconds: 24, ended_by: "platform" })).status).toBe(200);
    const testCall = bodyOf(await owner.client.get(`/api/customer/test-calls/${originate.test_call_id}`), 200);
    expect(testCall).toMatchObject({ status: "done", purpose: "verify", call_id: null });
    expect(bodyOf(await owner.client.get("/api/calls"), 200).items).toEqual([]);
    expect((await owner.client.get(`/api/calls/${admit.body.call_id}`)).status).toBe(404);
    expect((await owner.client.get(`/api/calls/${admit.body.call_id}/recording`)).status).toBe(404);
    expect(await env.DB.prepare("SELECT id FROM calls WHERE id = ?").bind(admit.body.call_id).first()).toBeNull();
    // Only the code spoken on that route verifies the number.
    expect(bodyOf(await verify(owner, added.body.id, originate.code), 200).verified).toBe(true);
  });

  it("verifies the number with the code spoken; entering it again changes nothing", async () => {
    const { owner } = await readyAccount();
    const fake = await connect("vn-node-b");
    const number = uniqueNumber();
    const body = bodyOf(await add(owner, number), 201);
    const code = await codeSentTo(fake, number);
    const res = await verify(owner, body.id, code);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: body.id, verified: true, verification_method: "call", code_expires_at: null, attempts_left: 0 });
    expect(res.body.verified_at).toBeTypeOf("string");
    expect((await verify(owner, body.id, code)).body).toEqual(res.body);
    expect((await owner.client.get("/api/customer/verified-numbers")).body).toEqual([res.body]);
    expect((await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`)).status).toBe(409);
  });

  it("ends the code after five wrong ones: even the right one is then refused until a new call", async () => {
    const { owner } = await readyAccount();
    const fake = await connect("vn-node-c");
    const number = uniqueNumber();
    const body = bodyOf(await add(owner, number), 201);
    const code = await codeSentTo(fake, number);
    const wrong = code === "000000" ? "000001" : "000000";
    for (let left = 4; left >= 0; left--) {
      const res = await verify(owner, body.id, wrong);
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]).toMatchObject({ loc: ["body", "code"], type: "wrong_code" });
      const row = firstOf(bodyOf(await owner.client.get("/api/customer/verified-numbers"), 200));
      expect(row.attempts_left).toBe(left);
    }
    const right = await verify(owner, body.id, code);
    expectStatus(right, 422);
    expect(issuesOf(right.body)[0]).toMatchObject({ loc: ["body", "code"], type: "code_expired" });

    const seen = fake.seen.length;
    const again = await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`);
    expectStatus(again, 200);
    expect(again.body).toMatchObject({ verified: false, attempts_left: 5 });
    const fresh = await codeSentTo(fake, number, seen);
    expect(bodyOf(await verify(owner, body.id, fresh), 200).verified).toBe(true);
  });

  it("refuses a code past its ten minutes; a new call brings a new code and the old one stops working", async () => {
    const { owner } = await readyAccount();
    const fake = await connect("vn-node-d");
    const number = uniqueNumber();
    const body = bodyOf(await add(owner, number), 201);
    const first = await codeSentTo(fake, number);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 601_000);
    const late = await verify(owner, body.id, first);
    expectStatus(late, 422);
    expect(issuesOf(late.body)[0]).toMatchObject({ loc: ["body", "code"], type: "code_expired" });
    const seen = fake.seen.length;
    expect((await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`)).status).toBe(200);
    const second = await codeSentTo(fake, number, seen);
    if (second !== first) expect((await verify(owner, body.id, first)).status).toBe(422);
    expect(bodyOf(await verify(owner, body.id, second), 200).verified).toBe(true);
  });

  it("calls one number at most three times an hour (429 with Retry-After)", async () => {
    const { owner } = await readyAccount();
    const number = uniqueNumber();
    const body = bodyOf(await add(owner, number), 201);
    expect((await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`)).status).toBe(200);
    expect((await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`)).status).toBe(200);
    const fourth = await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`);
    expectStatus(fourth, 429);
    expect(fourth.body).toEqual({ detail: "too_many_verification_calls" });
    expect(Number(fourth.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("hands a number to the account that answers its code: the account that had it loses it and is told by mail", async () => {
    const a = await readyAccount();
    const b = await readyAccount();
    const fake = await connect("vn-node-e");
    const number = uniqueNumber();
    const first = await verifyNumber(a.owner, fake, number);
    expect(first.verified).toBe(true);
    // b writes the number with an international prefix: it is the same number in E.164.
    const before = fake.seen.length;
    const pending = await add(b.owner, `001${number.slice(2)}`);
    expectStatus(pending, 201);
    expect(pending.body.number).toBe(number);
    const bCode = await codeSentTo(fake, number, before);
    const won = await verify(b.owner, pending.body.id, bCode);
    expectStatus(won, 200);
    expect(won.body).toMatchObject({ number, verified: true });

    const [lost] = bodyOf(await a.owner.client.get("/api/customer/verified-numbers"), 200);
    expect(lost).toMatchObject({ id: first.id, number, verified: false, verified_at: null });
    expect(await latestMailTo(a.owner.email)).toContain(`Another account has just verified ${number}`);
    // What the number unlocked for a is gone; b has it.
    const asCaller = await a.owner.client.post("/api/customer/test-calls", { number: uniqueNumber(), caller_id: number });
    expectStatus(asCaller, 422);
    expect(issuesOf(asCaller.body)[0]).toMatchObject({ loc: ["body", "caller_id"], type: "caller_id_not_verified" });
    const scam = await a.owner.client.post("/api/customer/test-calls", { number, speech: "scam_sample" });
    expectStatus(scam, 422);
    expect(issuesOf(scam.body)[0]).toMatchObject({ loc: ["body", "number"], type: "number_not_verified" });
    expect((await b.owner.client.post("/api/customer/test-calls", { number: uniqueNumber(), caller_id: number })).status).toBe(202);
  });

  it("answers 409 for a number the account already has (with or without +), storing nothing more", async () => {
    const { owner } = await readyAccount();
    const number = uniqueNumber();
    expect((await add(owner, number)).status).toBe(201);
    const twice = await add(owner, number.replace("+", ""));
    expectStatus(twice, 409);
    expect(twice.body).toEqual({ detail: "Number already added" });
    expect(await numberRows(owner.account.id)).toHaveLength(1);
  });

  it("needs no destination of the account's (the platform's route calls), and answers 403 when test calls are off, storing nothing", async () => {
    const bare = await createAccount();
    const fake = await connect("vn-node-bare");
    const number = uniqueNumber();
    expect((await add(bare, number)).status).toBe(201);
    await untilSent(fake, (c) => c.type === "originate" && c.number === number);
    const { owner } = await readyAccount();
    await env.DB.prepare("UPDATE customers SET test_calls_enabled = 0 WHERE id = ?").bind(owner.account.id).run();
    const off = await add(owner, uniqueNumber());
    expectStatus(off, 403);
    expect(off.body).toEqual({ detail: "test_calls_disabled" });
    expect(await numberRows(owner.account.id)).toEqual([]);
  });

  it("refuses to call a premium-rate number to verify it (422 number_not_allowed), storing nothing", async () => {
    const { owner } = await readyAccount();
    const res = await add(owner, "+19005550123");
    expectStatus(res, 422);
    expect(issuesOf(res.body)[0]).toMatchObject({ loc: ["body", "number"], type: "number_not_allowed" });
    expect(await numberRows(owner.account.id)).toEqual([]);
  });

  it("answers 422 naming the field for bad input, storing nothing", async () => {
    const { owner } = await readyAccount();
    for (const [body, field] of [
      [{}, "number"],
      [{ number: "7" }, "number"],
      [{ number: "+1 415 555" }, "number"],
      [{ number: "+14155550100", label: "x".repeat(201) }, "label"],
    ] as const) {
      const res = await owner.client.post("/api/customer/verified-numbers", body);
      expectStatus(res, 422, JSON.stringify(body));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", field]);
    }
    expect(await numberRows(owner.account.id)).toEqual([]);
    const body = bodyOf(await add(owner, uniqueNumber()), 201);
    for (const code of ["12345", "1234567", "abcdef", 123456]) {
      const res = await verify(owner, body.id, code as string);
      expectStatus(res, 422, String(code));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "code"]);
    }
    const row = firstOf(bodyOf(await owner.client.get("/api/customer/verified-numbers"), 200));
    expect(row.attempts_left).toBe(5);
  });
});

describe("DELETE /api/customer/verified-numbers/{id}", () => {
  it("removes the number; it is 404 afterwards, and another account's number is 404 too", async () => {
    const { owner } = await readyAccount();
    const other = await readyAccount();
    const body = bodyOf(await add(owner, uniqueNumber()), 201);
    expect((await other.owner.client.delete(`/api/customer/verified-numbers/${body.id}`)).status).toBe(404);
    expect((await verify(other.owner, body.id, "123456")).status).toBe(404);
    expect((await owner.client.delete(`/api/customer/verified-numbers/${body.id}`)).status).toBe(204);
    expect((await owner.client.get("/api/customer/verified-numbers")).body).toEqual([]);
    const gone = await owner.client.delete(`/api/customer/verified-numbers/${body.id}`);
    expectStatus(gone, 404);
    expect(gone.body).toEqual({ detail: "verified number not found" });
  });
});
