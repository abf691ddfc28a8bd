// Verified caller IDs (our extension): adding a number makes the platform call it and speak a
// six-digit code (a test call of purpose verify, sent to a SIP node as an originate); the owner
// enters the code. Only a hash of the code is kept; wrong codes and calls are limited; a number
// belongs to one account.
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { addDestination } from "./destination-fixtures.ts";
import { createAccount, type Session } from "./fixtures.ts";
import { node } from "./node-client.ts";
import { connectNode, uniqueNumber, untilSent, verifyNumber, type FakeNode } from "./test-call-fixtures.ts";

const nodes: FakeNode[] = [];
const connect = async (nodeId: string) => {
  const fake = await connectNode(nodeId);
  nodes.push(fake);
  return fake;
};

afterEach(() => {
  for (const fake of nodes.splice(0)) fake.close();
});

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
  it("calls the number through the default destination and speaks a six-digit code, keeping only its hash", async () => {
    const { owner, destination } = await readyAccount();
    const fake = await connect("vn-node-a");
    const number = uniqueNumber();
    const res = await add(owner, number);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      number,
      label: null,
      verified: false,
      verified_at: null,
      verification_method: null,
      attempts_left: 5,
    });
    expect(Date.parse(res.body.code_expires_at) - Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(599_000);

    const originate = await untilSent(fake, (c) => c.type === "originate" && c.number === number);
    expect(originate).toMatchObject({ speech: "verification_code", caller_id: "+18005550100", seconds: 20 });
    expect(originate.code).toMatch(/^[0-9]{6}$/);
    const [call] = (await owner.client.get("/api/customer/test-calls")).body;
    expect(call).toMatchObject({
      id: originate.test_call_id,
      purpose: "verify",
      speech: "verification_code",
      destination_id: destination.id,
    });

    const [row] = await numberRows(owner.account.id);
    expect(row!.verification_code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(originate.code);

    // The verification call is admitted like any test call, on the default destination.
    const admit = await node.admit({
      origin: "test",
      test_call_id: call.id,
      sip_call_id: call.sip_call_id,
      src_ip: "127.0.0.1",
      dialed: number,
    });
    expect(admit.body).toMatchObject({ decision: "admit", route: "forced", destination: { id: destination.id } });
  });

  it("verifies the number with the code spoken; entering it again changes nothing", async () => {
    const { owner } = await readyAccount();
    const fake = await connect("vn-node-b");
    const number = uniqueNumber();
    const { body } = await add(owner, number);
    const code = await codeSentTo(fake, number);
    const res = await verify(owner, body.id, code);
    expect(res.status).toBe(200);
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
    const { body } = await add(owner, number);
    const code = await codeSentTo(fake, number);
    const wrong = code === "000000" ? "000001" : "000000";
    for (let left = 4; left >= 0; left--) {
      const res = await verify(owner, body.id, wrong);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "code"], type: "wrong_code" });
      const [row] = (await owner.client.get("/api/customer/verified-numbers")).body;
      expect(row.attempts_left).toBe(left);
    }
    const right = await verify(owner, body.id, code);
    expect(right.status).toBe(422);
    expect(right.body.detail[0]).toMatchObject({ loc: ["body", "code"], type: "code_expired" });

    const seen = fake.seen.length;
    const again = await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ verified: false, attempts_left: 5 });
    const fresh = await codeSentTo(fake, number, seen);
    expect((await verify(owner, body.id, fresh)).body.verified).toBe(true);
  });

  it("refuses a code past its ten minutes; a new call brings a new code and the old one stops working", async () => {
    const { owner } = await readyAccount();
    const fake = await connect("vn-node-d");
    const number = uniqueNumber();
    const { body } = await add(owner, number);
    const first = await codeSentTo(fake, number);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 601_000);
    const late = await verify(owner, body.id, first);
    expect(late.status).toBe(422);
    expect(late.body.detail[0]).toMatchObject({ loc: ["body", "code"], type: "code_expired" });
    const seen = fake.seen.length;
    expect((await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`)).status).toBe(200);
    const second = await codeSentTo(fake, number, seen);
    if (second !== first) expect((await verify(owner, body.id, first)).status).toBe(422);
    expect((await verify(owner, body.id, second)).body.verified).toBe(true);
  });

  it("calls one number at most three times an hour (429 with Retry-After)", async () => {
    const { owner } = await readyAccount();
    const number = uniqueNumber();
    const { body } = await add(owner, number);
    expect((await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`)).status).toBe(200);
    expect((await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`)).status).toBe(200);
    const fourth = await owner.client.post(`/api/customer/verified-numbers/${body.id}/call`);
    expect(fourth.status).toBe(429);
    expect(fourth.body).toEqual({ detail: "too_many_verification_calls" });
    expect(Number(fourth.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("keeps a number to one account: 409 once another account verified it, at adding and at verifying", async () => {
    const a = await readyAccount();
    const b = await readyAccount();
    const fake = await connect("vn-node-e");
    const number = uniqueNumber();
    const pending = await add(b.owner, number);
    expect(pending.status).toBe(201);
    const bCode = await codeSentTo(fake, number);
    await verifyNumber(a.owner, fake, number);
    const late = await verify(b.owner, pending.body.id, bCode);
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ detail: "Number is verified by another account" });
    const c = await readyAccount();
    const refused = await add(c.owner, number.replace("+", ""));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: "Number is verified by another account" });
    expect(await numberRows(c.owner.account.id)).toEqual([]);
  });

  it("answers 409 for a number the account already has (with or without +), storing nothing more", async () => {
    const { owner } = await readyAccount();
    const number = uniqueNumber();
    expect((await add(owner, number)).status).toBe(201);
    const twice = await add(owner, number.replace("+", ""));
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ detail: "Number already added" });
    expect(await numberRows(owner.account.id)).toHaveLength(1);
  });

  it("answers 409 without a default destination and 403 when test calls are off, storing nothing", async () => {
    const bare = await createAccount();
    const res = await add(bare, uniqueNumber());
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: "Add a destination before verifying a number" });
    expect(await numberRows(bare.account.id)).toEqual([]);
    const { owner } = await readyAccount();
    await env.DB.prepare("UPDATE customers SET test_calls_enabled = 0 WHERE id = ?").bind(owner.account.id).run();
    const off = await add(owner, uniqueNumber());
    expect(off.status).toBe(403);
    expect(off.body).toEqual({ detail: "test_calls_disabled" });
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
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", field]);
    }
    expect(await numberRows(owner.account.id)).toEqual([]);
    const { body } = await add(owner, uniqueNumber());
    for (const code of ["12345", "1234567", "abcdef", 123456]) {
      const res = await verify(owner, body.id, code as string);
      expect(res.status, String(code)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "code"]);
    }
    const [row] = (await owner.client.get("/api/customer/verified-numbers")).body;
    expect(row.attempts_left).toBe(5);
  });
});

describe("DELETE /api/customer/verified-numbers/{id}", () => {
  it("removes the number; it is 404 afterwards, and another account's number is 404 too", async () => {
    const { owner } = await readyAccount();
    const other = await readyAccount();
    const { body } = await add(owner, uniqueNumber());
    expect((await other.owner.client.delete(`/api/customer/verified-numbers/${body.id}`)).status).toBe(404);
    expect((await verify(other.owner, body.id, "123456")).status).toBe(404);
    expect((await owner.client.delete(`/api/customer/verified-numbers/${body.id}`)).status).toBe(204);
    expect((await owner.client.get("/api/customer/verified-numbers")).body).toEqual([]);
    const gone = await owner.client.delete(`/api/customer/verified-numbers/${body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: "verified number not found" });
  });
});
