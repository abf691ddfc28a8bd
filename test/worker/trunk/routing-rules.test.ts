// Prefix routing rules (spec: Routing rule, /customer/routing-rules).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bodyOf, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { createAccount } from "../fixtures/factory.ts";
import { addRoutingRule, insertDestination } from "../fixtures/network.ts";

const NOT_FOUND = { detail: "Routing rule not found" };
const NO_DESTINATION = { detail: "Destination not found" };

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("POST /customer/routing-rules", () => {
  it("creates a rule with the defaults: enabled, priority 100, no label", async () => {
    const owner = await createAccount();
    const destination = await insertDestination(owner);
    const res = await owner.client.post("/api/customer/routing-rules", { prefix: "+4930", destination_id: destination.id });
    expectStatus(res, 201);
    expect(Object.keys(res.body).sort()).toEqual([
      "created_at",
      "destination_id",
      "enabled",
      "id",
      "label",
      "prefix",
      "priority",
      "updated_at",
    ]);
    expect(res.body).toMatchObject({ prefix: "+4930", destination_id: destination.id, enabled: true, priority: 100, label: null });
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(res.body.updated_at).toBe(res.body.created_at);
    expect((await owner.client.get("/api/customer/routing-rules")).body).toEqual([res.body]);
  });

  it("stores every field given", async () => {
    const owner = await createAccount();
    const destination = await insertDestination(owner);
    const rule = await addRoutingRule(owner, "4930", destination.id, { enabled: false, priority: 7, label: "Berlin" });
    expect(rule).toMatchObject({ prefix: "4930", destination_id: destination.id, enabled: false, priority: 7, label: "Berlin" });
    const row = await env.DB.prepare("SELECT customer_id, enabled, priority FROM routing_rules WHERE id = ?").bind(rule.id).first();
    expect(row).toEqual({ customer_id: owner.account.id, enabled: 0, priority: 7 });
    expect((await owner.client.get("/api/customer/routing-rules")).body).toEqual([rule]);
  });

  it("accepts digits with an optional leading +, 1 to 20 characters, and nothing else", async () => {
    const owner = await createAccount();
    const destination = await insertDestination(owner);
    for (const prefix of ["1", "+1", "9".repeat(20), `+${"9".repeat(19)}`]) {
      expect((await addRoutingRule(owner, prefix, destination.id)).prefix).toBe(prefix);
    }
    for (const prefix of ["", "+", "++1", "1+", "12a", " 1", "1-2", `+${"9".repeat(20)}`, "9".repeat(21), 44]) {
      const res = await owner.client.post("/api/customer/routing-rules", { prefix, destination_id: destination.id });
      expectStatus(res, 422, String(prefix));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "prefix"]);
    }
    const missing = await owner.client.post("/api/customer/routing-rules", { destination_id: destination.id });
    expectStatus(missing, 422);
    expect(missing.body.detail).toEqual([{ loc: ["body", "prefix"], msg: "Field required", type: "missing" }]);
    for (const priority of [1.5, -1, "10"]) {
      const res = await owner.client.post("/api/customer/routing-rules", { prefix: "7", destination_id: destination.id, priority });
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "priority"]);
    }
    expect((await owner.client.get("/api/customer/routing-rules")).body).toHaveLength(4);
  });

  it("answers 404 Destination not found for another account's or an unknown destination", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const theirs = await insertDestination(other);
    for (const destination_id of [theirs.id, crypto.randomUUID()]) {
      const res = await owner.client.post("/api/customer/routing-rules", { prefix: "44", destination_id });
      expectStatus(res, 404);
      expect(res.body).toEqual(NO_DESTINATION);
    }
    for (const destination_id of [undefined, null, "nope"]) {
      const res = await owner.client.post("/api/customer/routing-rules", { prefix: "44", destination_id });
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "destination_id"]);
    }
    expect((await owner.client.get("/api/customer/routing-rules")).body).toEqual([]);
  });

  it("answers 409 Conflict for the same prefix and destination twice", async () => {
    const owner = await createAccount();
    const d1 = await insertDestination(owner);
    const d2 = await insertDestination(owner);
    await addRoutingRule(owner, "44", d1.id);
    const dup = await owner.client.post("/api/customer/routing-rules", { prefix: "44", destination_id: d1.id, priority: 5 });
    expectStatus(dup, 409);
    expect(dup.body).toEqual({ detail: "Conflict" });
    // Same prefix to another destination, or another account with the same prefix, is fine.
    await addRoutingRule(owner, "44", d2.id);
    await addRoutingRule(owner, "+44", d1.id);
    const other = await createAccount();
    await addRoutingRule(other, "44", (await insertDestination(other)).id);
    expect((await owner.client.get("/api/customer/routing-rules")).body).toHaveLength(3);
  });
});

describe("GET /customer/routing-rules", () => {
  it("lists longest prefix first, then lowest priority, only the caller's rules", async () => {
    const owner = await createAccount();
    const d = await insertDestination(owner);
    const d2 = await insertDestination(owner);
    await addRoutingRule(owner, "1", d.id, { priority: 1 });
    await addRoutingRule(owner, "+1212", d.id, { priority: 100 });
    await addRoutingRule(owner, "1212", d2.id, { priority: 50 });
    await addRoutingRule(owner, "+12", d.id, { priority: 100 });
    await addRoutingRule(owner, "121", d.id, { priority: 20, enabled: false });
    await addRoutingRule(owner, "44", d.id, { priority: 10 });
    const list = bodyOf(await owner.client.get("/api/customer/routing-rules"), 200);
    expect(list.map((r) => `${r.prefix}@${r.priority}`)).toEqual(["1212@50", "+1212@100", "121@20", "44@10", "+12@100", "1@1"]);

    const other = await createAccount();
    expect((await other.client.get("/api/customer/routing-rules")).body).toEqual([]);
    expect((await request("GET", "/api/customer/routing-rules")).status).toBe(401);
  });
});

describe("PATCH /customer/routing-rules/{rule_id}", () => {
  it("changes every field, keeps created_at and moves updated_at", async () => {
    const owner = await createAccount();
    const d1 = await insertDestination(owner);
    const d2 = await insertDestination(owner);
    const rule = await addRoutingRule(owner, "33", d1.id, { label: "France" });
    await tick();
    const res = await owner.client.patch(`/api/customer/routing-rules/${rule.id}`, {
      prefix: "+331",
      destination_id: d2.id,
      enabled: false,
      priority: 3,
      label: "Paris",
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      id: rule.id,
      prefix: "+331",
      destination_id: d2.id,
      enabled: false,
      priority: 3,
      label: "Paris",
      created_at: rule.created_at,
    });
    expect(res.body.updated_at > rule.updated_at).toBe(true);
    expect((await owner.client.get("/api/customer/routing-rules")).body).toEqual([res.body]);

    await tick();
    const partial = await owner.client.patch(`/api/customer/routing-rules/${rule.id}`, { label: null });
    expectStatus(partial, 200);
    expect(partial.body).toEqual({ ...res.body, label: null, updated_at: partial.body.updated_at });
    expect(partial.body.updated_at > res.body.updated_at).toBe(true);
    const stored = await env.DB.prepare("SELECT updated_at FROM routing_rules WHERE id = ?").bind(rule.id).first();
    expect(stored).toEqual({ updated_at: partial.body.updated_at });
  });

  it("answers 409 Conflict when the change duplicates another rule, and validates fields", async () => {
    const owner = await createAccount();
    const d1 = await insertDestination(owner);
    const d2 = await insertDestination(owner);
    await addRoutingRule(owner, "49", d1.id);
    const other = await addRoutingRule(owner, "49", d2.id);
    const third = await addRoutingRule(owner, "48", d1.id);
    for (const [id, body] of [
      [other.id, { destination_id: d1.id }],
      [third.id, { prefix: "49" }],
    ] as const) {
      const res = await owner.client.patch(`/api/customer/routing-rules/${id}`, body);
      expectStatus(res, 409);
      expect(res.body).toEqual({ detail: "Conflict" });
    }
    for (const body of [{ prefix: "x" }, { priority: -5 }, { enabled: 1 }, { destination_id: null }]) {
      const res = await owner.client.patch(`/api/customer/routing-rules/${other.id}`, body);
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", Object.keys(body)[0]]);
    }
    const list = bodyOf(await owner.client.get("/api/customer/routing-rules"), 200);
    expect(list.find((r) => r.id === other.id)).toEqual(other);
    expect(list.find((r) => r.id === third.id)).toEqual(third);
  });

  it("answers 404 for an unknown rule, another account's rule, or another account's destination", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const bDest = await insertDestination(b);
    const theirs = await addRoutingRule(b, "1", bDest.id);
    const mine = await addRoutingRule(a, "1", (await insertDestination(a)).id);

    const unknown = await a.client.patch(`/api/customer/routing-rules/${crypto.randomUUID()}`, { priority: 1 });
    expectStatus(unknown, 404);
    expect(unknown.body).toEqual(NOT_FOUND);
    const cross = await a.client.patch(`/api/customer/routing-rules/${theirs.id}`, { priority: 1, label: "hijack" });
    expectStatus(cross, 404);
    expect(cross.body).toEqual(NOT_FOUND);
    expect((await b.client.get("/api/customer/routing-rules")).body).toEqual([theirs]);

    const dest = await a.client.patch(`/api/customer/routing-rules/${mine.id}`, { destination_id: bDest.id });
    expectStatus(dest, 404);
    expect(dest.body).toEqual(NO_DESTINATION);
    expect((await a.client.get("/api/customer/routing-rules")).body).toEqual([mine]);
  });
});

describe("DELETE /customer/routing-rules/{rule_id}", () => {
  it("deletes the caller's rule; another account's rule answers 404 and stays", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const theirs = await addRoutingRule(b, "7", (await insertDestination(b)).id);
    const mine = await addRoutingRule(a, "7", (await insertDestination(a)).id);

    const cross = await a.client.delete(`/api/customer/routing-rules/${theirs.id}`);
    expectStatus(cross, 404);
    expect(cross.body).toEqual(NOT_FOUND);
    expect((await b.client.get("/api/customer/routing-rules")).body).toEqual([theirs]);

    expect((await a.client.delete(`/api/customer/routing-rules/${mine.id}`)).status).toBe(204);
    expect((await a.client.get("/api/customer/routing-rules")).body).toEqual([]);
    const again = await a.client.delete(`/api/customer/routing-rules/${mine.id}`);
    expectStatus(again, 404);
    expect(again.body).toEqual(NOT_FOUND);
    expect((await request("DELETE", `/api/customer/routing-rules/${mine.id}`)).status).toBe(401);
  });
});
