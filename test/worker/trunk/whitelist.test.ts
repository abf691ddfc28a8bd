// The trunk whitelist (spec: Whitelist entry, /customer/ips, /customer/network-info): entries made,
// changed and deleted, each mirrored in the TrunkRegistry (trunk-registry.test.ts tests the registry
// itself, whitelist-proof.test.ts proof of control).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseCidr, type Cidr } from "../../../schema/cidr.ts";
import { bodyOf, expectStatus, issuesOf, request } from "../fixtures/client.ts";
import { createAccount } from "../fixtures/factory.ts";
import {
  addWhitelistEntry,
  expectRegistryAgrees,
  insertDestination,
  registry,
  v4Block,
  v4Wide,
  v6Block,
  whitelistRowById,
  whitelistRowsOf,
} from "../fixtures/network.ts";

const OVERLAP = { detail: "CIDR overlaps a range registered to another account" };
const EXISTS = { detail: "Entry already exists" };
const NOT_FOUND = { detail: "IP entry not found" };

const range = (cidr: string) => parseCidr(cidr) as Cidr;

describe("GET /customer/network-info", () => {
  it("tells where to send calls, from configuration", async () => {
    const owner = await createAccount();
    const res = await owner.client.get("/api/customer/network-info");
    expectStatus(res, 200);
    expect(res.body).toEqual({ ingress_host: "sip.example.net", ingress_port: 5060, transports: ["udp", "tcp"] });
    expect((await request("GET", "/api/customer/network-info")).status).toBe(401);
  });
});

describe("POST /customer/ips", () => {
  it("whitelists a range with the defaults and lists it", async () => {
    const owner = await createAccount();
    const { cidr } = v4Block();
    const res = await owner.client.post("/api/customer/ips", { cidr });
    expectStatus(res, 201);
    // The spec's fields, and our proof-of-control extension.
    expect(Object.keys(res.body).sort()).toEqual([
      "admits_calls",
      "cidr",
      "created_at",
      "destination_id",
      "dial_prefix",
      "enabled",
      "id",
      "label",
      "pending_reason",
      "verification",
      "verified_at",
    ]);
    expect(res.body).toMatchObject({ admits_calls: true, pending_reason: null, verification: "unverified", verified_at: null });
    expect(res.body).toMatchObject({ cidr, label: null, dial_prefix: null, destination_id: null, enabled: true });
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(Date.parse(res.body.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await owner.client.get("/api/customer/ips")).body).toEqual([res.body]);
    await expectRegistryAgrees(owner);
  });

  it("stores every field given", async () => {
    const owner = await createAccount();
    const destination = await insertDestination(owner);
    const { base } = v4Block();
    const entry = await addWhitelistEntry(owner, `${base}.0/24`, {
      label: "Core SBC",
      dial_prefix: "4711",
      destination_id: destination.id,
      enabled: false,
    });
    expect(entry).toMatchObject({
      cidr: `${base}.0/24`,
      label: "Core SBC",
      dial_prefix: "4711",
      destination_id: destination.id,
      enabled: false,
    });
    expect((await owner.client.get("/api/customer/ips")).body).toEqual([entry]);
    const row = await env.DB.prepare("SELECT enabled, updated_at FROM whitelist_ips WHERE id = ?").bind(entry.id).first<any>();
    expect(row).toEqual({ enabled: 0, updated_at: entry.created_at });
  });

  it("stores IPv4, IPv6 and bare addresses in canonical form with their hex range", async () => {
    const owner = await createAccount();
    const v4 = v4Block();
    const v6 = v6Block();
    const [g1, g2, g3] = v6.base.split(":");
    const cases: [string, string, number][] = [
      [` ${v4.base}.0/24 `, `${v4.base}.0/24`, 4],
      [`${v4.base}.7`, `${v4.base}.7/32`, 4],
      [`${g1!.toUpperCase()}:${g2!.padStart(4, "0")}:${g3!.padStart(4, "0")}:0:0:0:0:0/48`, v6.cidr, 6],
      [`${v6.base}:1:0:0:0:5`, `${v6.base}:1::5/128`, 6],
    ];
    for (const [input, canonical, version] of cases) {
      const entry = await addWhitelistEntry(owner, input);
      expect(entry.cidr).toBe(canonical);
      const row = (await whitelistRowById(entry.id))!;
      const expected = range(canonical);
      expect(row).toMatchObject({ cidr: canonical, ip_version: version, range_start: expected.start, range_end: expected.end });
    }
    expect((await whitelistRowById(bodyOf(await owner.client.get("/api/customer/ips"), 200)[3]?.id ?? ""))!.range_start).toBe(
      `00000000000000000000ffff${v4.base
        .split(".")
        .map((o) => Number(o).toString(16).padStart(2, "0"))
        .join("")}00`,
    );
    await expectRegistryAgrees(owner);
  });

  it("refuses host bits, too-wide ranges and non-addresses with 422 naming cidr, storing nothing", async () => {
    const owner = await createAccount();
    const { base } = v4Block();
    const v6 = v6Block();
    const refused: [string, RegExp][] = [
      [`${base}.5/24`, /host bits are set: did you mean .*\.0\/24/],
      [`${v6.base}::1/48`, /host bits are set/],
      ["10.0.0.0/8", /ranges wider than \/16 are not accepted/],
      ["10.128.0.0/15", /ranges wider than \/16 are not accepted/],
      ["fd00::/31", /ranges wider than \/32 are not accepted/],
      [`${base}.0/33`, /at most 32/],
      ["sbc.carrier.test", /not an IP address or CIDR range/],
      [`${base}.256`, /not an IP address or CIDR range/],
      [`${base}.0/x`, /must be a number/],
    ];
    for (const [cidr, msg] of refused) {
      const res = await owner.client.post("/api/customer/ips", { cidr });
      expectStatus(res, 422, cidr);
      expect(res.body.detail).toHaveLength(1);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "cidr"], type: "value_error" });
      expect(issuesOf(res.body)[0]?.msg, cidr).toMatch(msg);
    }
    const missing = await owner.client.post("/api/customer/ips", { label: "no range" });
    expectStatus(missing, 422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ["body", "cidr"], type: "missing" });
    expect(await whitelistRowsOf(owner)).toEqual([]);
    expect(await registry().claimsOf(owner.account.id)).toEqual([]);
  });

  it("accepts the widest ranges allowed: an IPv4 /16 and an IPv6 /32", async () => {
    const owner = await createAccount();
    const wide = v4Wide();
    expect((await addWhitelistEntry(owner, wide)).cidr).toBe(wide);
    const v6 = `fd${Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, "0")}:${(1 + Math.floor(Math.random() * 0xfffe)).toString(16)}::/32`;
    const entry = await addWhitelistEntry(owner, v6);
    expect(entry.cidr).toBe(v6);
    // Free the space at once: other tests take blocks from the same ranges.
    for (const e of bodyOf(await owner.client.get("/api/customer/ips"), 200)) {
      expect((await owner.client.delete(`/api/customer/ips/${e.id}`)).status).toBe(204);
    }
  });

  it("checks dial_prefix: digits only, 1 to 16 of them", async () => {
    const owner = await createAccount();
    const { base } = v4Block();
    for (const dial_prefix of ["", "12a4", "+49", "1".repeat(17), 4711]) {
      const res = await owner.client.post("/api/customer/ips", { cidr: `${base}.0/24`, dial_prefix });
      expectStatus(res, 422, String(dial_prefix));
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", "dial_prefix"]);
    }
    expect((await addWhitelistEntry(owner, `${base}.0/24`, { dial_prefix: "1".repeat(16) })).dial_prefix).toBe("1".repeat(16));
    expect((await addWhitelistEntry(owner, `${base}.0/24`, { dial_prefix: "0" })).dial_prefix).toBe("0");
    expect((await addWhitelistEntry(owner, `${base}.0/24`, { dial_prefix: null })).dial_prefix).toBeNull();
  });

  it("answers 404 Destination not found for another account's or an unknown destination", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const theirs = await insertDestination(other);
    const { cidr } = v4Block();
    for (const destination_id of [theirs.id, crypto.randomUUID()]) {
      const res = await owner.client.post("/api/customer/ips", { cidr, destination_id });
      expectStatus(res, 404);
      expect(res.body).toEqual({ detail: "Destination not found" });
    }
    expect((await owner.client.post("/api/customer/ips", { cidr, destination_id: "not-a-uuid" })).status).toBe(422);
    expect(await whitelistRowsOf(owner)).toEqual([]);
    expect(await registry().claimsOf(owner.account.id)).toEqual([]);
  });

  it("lets one account overlap itself: a /24 plus sub-customer /32s told apart by dial prefix", async () => {
    const owner = await createAccount();
    const { base } = v4Block();
    await addWhitelistEntry(owner, `${base}.0/24`, { label: "trunk" });
    await addWhitelistEntry(owner, `${base}.10`, { dial_prefix: "101", label: "sub A" });
    await addWhitelistEntry(owner, `${base}.10`, { dial_prefix: "102", label: "sub B" });
    await addWhitelistEntry(owner, `${base}.10`, { label: "sub without prefix" });
    await addWhitelistEntry(owner, `${base}.128/25`);
    expect(await whitelistRowsOf(owner)).toHaveLength(5);
    await expectRegistryAgrees(owner);
  });

  it("answers 409 Entry already exists for the same range and dial prefix twice, and keeps no stray claim", async () => {
    const owner = await createAccount();
    const { base } = v4Block();
    await addWhitelistEntry(owner, `${base}.0/24`);
    await addWhitelistEntry(owner, `${base}.9`, { dial_prefix: "55" });
    for (const body of [
      { cidr: `${base}.0/24` },
      { cidr: `${base}.0/24`, dial_prefix: null },
      { cidr: `${base}.9/32`, dial_prefix: "55" },
    ]) {
      const res = await owner.client.post("/api/customer/ips", body);
      expectStatus(res, 409);
      expect(res.body).toEqual(EXISTS);
    }
    // Both requests pass the first look; the unique index refuses one and its claim is given back.
    const { base: raced } = v4Block();
    const replies = await Promise.all([1, 2, 3].map(() => owner.client.post("/api/customer/ips", { cidr: `${raced}.0/24` })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(replies.filter((r) => r.status === 409).map((r) => r.body)).toEqual([EXISTS, EXISTS]);
    expect(await whitelistRowsOf(owner)).toHaveLength(3);
    await expectRegistryAgrees(owner);
  });

  it("refuses a range overlapping another account's with 409, storing nothing", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const { base } = v4Block();
    const v6 = v6Block();
    await addWhitelistEntry(a, `${base}.0/24`);
    await addWhitelistEntry(a, v6.cidr);
    const clashing = [
      `${base}.0/24`,
      `${base}.128/25`,
      `${base}.77`,
      `${base.split(".").slice(0, 2).join(".")}.0.0/16`,
      `::ffff:${base}.0/120`,
      `${v6.base}:1::/64`,
      `${v6.base}::1`,
    ];
    for (const cidr of clashing) {
      const res = await b.client.post("/api/customer/ips", { cidr, dial_prefix: "1" });
      expectStatus(res, 409, cidr);
      expect(res.body).toEqual(OVERLAP);
    }
    expect(await whitelistRowsOf(b)).toEqual([]);
    expect(await registry().claimsOf(b.account.id)).toEqual([]);
    // Adjacent is not overlapping.
    const x = v4Block();
    const y = v4Block();
    await addWhitelistEntry(a, x.cidr);
    await addWhitelistEntry(b, y.cidr);
    await expectRegistryAgrees(a);
    await expectRegistryAgrees(b);
  });

  it("lists newest first and only the caller's entries", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const first = await addWhitelistEntry(a, v4Block().cidr);
    const second = await addWhitelistEntry(a, v6Block().cidr);
    const third = await addWhitelistEntry(a, v4Block().cidr);
    const theirs = await addWhitelistEntry(b, v4Block().cidr);
    expect(bodyOf(await a.client.get("/api/customer/ips"), 200).map((e) => e.id)).toEqual([third.id, second.id, first.id]);
    expect((await b.client.get("/api/customer/ips")).body).toEqual([theirs]);
    expect((await request("GET", "/api/customer/ips")).status).toBe(401);
  });
});

describe("PATCH /customer/ips/{ip_id}", () => {
  it("changes label, dial prefix, destination and enabled in place, keeping id and range", async () => {
    const owner = await createAccount();
    const d1 = await insertDestination(owner);
    const d2 = await insertDestination(owner, { label: "Backup" });
    const { base } = v4Block();
    const entry = await addWhitelistEntry(owner, `${base}.0/24`, { label: "old", destination_id: d1.id });
    const before = (await whitelistRowById(entry.id))!;

    const changed = await owner.client.patch(`/api/customer/ips/${entry.id}`, {
      label: "new",
      dial_prefix: "0044",
      destination_id: d2.id,
      enabled: false,
    });
    expectStatus(changed, 200);
    expect(changed.body).toEqual({
      ...entry,
      label: "new",
      dial_prefix: "0044",
      destination_id: d2.id,
      enabled: false,
      admits_calls: false,
      pending_reason: "disabled",
    });
    expect((await owner.client.get("/api/customer/ips")).body).toEqual([changed.body]);
    const after = (await whitelistRowById(entry.id))!;
    expect(after).toMatchObject({ cidr: before.cidr, range_start: before.range_start, range_end: before.range_end });

    // Only the fields sent change; null clears.
    const partial = await owner.client.patch(`/api/customer/ips/${entry.id}`, { enabled: true });
    expect(partial.body).toEqual({ ...changed.body, enabled: true, admits_calls: true, pending_reason: null });
    const cleared = await owner.client.patch(`/api/customer/ips/${entry.id}`, { label: null, dial_prefix: null, destination_id: null });
    expect(cleared.body).toEqual({ ...entry, label: null, dial_prefix: null, destination_id: null, enabled: true });
    await expectRegistryAgrees(owner);
  });

  it("cannot change the CIDR: 422 naming cidr, nothing changed", async () => {
    const owner = await createAccount();
    const { base } = v4Block();
    const entry = await addWhitelistEntry(owner, `${base}.0/24`, { label: "keep" });
    for (const cidr of [`${base}.0/25`, `${base}.0/24`, null]) {
      const res = await owner.client.patch(`/api/customer/ips/${entry.id}`, { cidr, label: "changed" });
      expectStatus(res, 422);
      expect(res.body.detail).toEqual([
        { loc: ["body", "cidr"], msg: "The CIDR cannot be changed: delete the entry and add the new range", type: "value_error" },
      ]);
    }
    expect((await owner.client.get("/api/customer/ips")).body).toEqual([entry]);
  });

  it("answers 409 Entry already exists when the new dial prefix clashes, and validates fields", async () => {
    const owner = await createAccount();
    const { base } = v4Block();
    await addWhitelistEntry(owner, `${base}.5`, { dial_prefix: "1" });
    const other = await addWhitelistEntry(owner, `${base}.5`, { dial_prefix: "2" });
    const bare = await addWhitelistEntry(owner, `${base}.5`);
    const clash = await owner.client.patch(`/api/customer/ips/${other.id}`, { dial_prefix: "1" });
    expectStatus(clash, 409);
    expect(clash.body).toEqual(EXISTS);
    const clashNull = await owner.client.patch(`/api/customer/ips/${other.id}`, { dial_prefix: null });
    expect(clashNull.body).toEqual(EXISTS);
    expect((await owner.client.patch(`/api/customer/ips/${bare.id}`, { dial_prefix: "3" })).status).toBe(200);
    for (const body of [{ dial_prefix: "x" }, { enabled: "yes" }, { destination_id: "nope" }, { label: "l".repeat(201) }]) {
      const res = await owner.client.patch(`/api/customer/ips/${other.id}`, body);
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", Object.keys(body)[0]]);
    }
    expect(bodyOf(await owner.client.get(`/api/customer/ips`), 200).find((e) => e.id === other.id)).toEqual(other);
  });

  it("answers 404 for an unknown entry, another account's entry, or another account's destination", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const theirs = await addWhitelistEntry(b, v4Block().cidr, { label: "b's" });
    const mine = await addWhitelistEntry(a, v4Block().cidr);
    const unknown = await a.client.patch(`/api/customer/ips/${crypto.randomUUID()}`, { label: "x" });
    expectStatus(unknown, 404);
    expect(unknown.body).toEqual(NOT_FOUND);
    const cross = await a.client.patch(`/api/customer/ips/${theirs.id}`, { label: "hijack", enabled: false });
    expectStatus(cross, 404);
    expect(cross.body).toEqual(NOT_FOUND);
    expect((await b.client.get("/api/customer/ips")).body).toEqual([theirs]);
    const bDestination = await insertDestination(b);
    const dest = await a.client.patch(`/api/customer/ips/${mine.id}`, { destination_id: bDestination.id });
    expectStatus(dest, 404);
    expect(dest.body).toEqual({ detail: "Destination not found" });
    expect((await a.client.get("/api/customer/ips")).body).toEqual([mine]);
  });
});

describe("DELETE /customer/ips/{ip_id}", () => {
  it("removes the entry and frees the range for another account", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const { base } = v4Block();
    const entry = await addWhitelistEntry(a, `${base}.0/24`);
    expect((await b.client.post("/api/customer/ips", { cidr: `${base}.128/25` })).body).toEqual(OVERLAP);
    expect((await a.client.delete(`/api/customer/ips/${entry.id}`)).status).toBe(204);
    expect((await a.client.get("/api/customer/ips")).body).toEqual([]);
    expect(await whitelistRowById(entry.id)).toBeNull();
    await expectRegistryAgrees(a);
    const taken = await addWhitelistEntry(b, `${base}.128/25`);
    await expectRegistryAgrees(b);
    // Now the first account is the stranger.
    expect((await a.client.post("/api/customer/ips", { cidr: `${base}.0/24` })).body).toEqual(OVERLAP);
    const again = await a.client.delete(`/api/customer/ips/${entry.id}`);
    expectStatus(again, 404);
    expect(again.body).toEqual(NOT_FOUND);
    expect((await b.client.get("/api/customer/ips")).body).toEqual([taken]);
  });

  it("answers 404 for another account's entry and leaves it and its claim in place", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const theirs = await addWhitelistEntry(b, v4Block().cidr);
    const res = await a.client.delete(`/api/customer/ips/${theirs.id}`);
    expectStatus(res, 404);
    expect(res.body).toEqual(NOT_FOUND);
    expect((await b.client.get("/api/customer/ips")).body).toEqual([theirs]);
    await expectRegistryAgrees(b);
    expect((await a.client.delete(`/api/customer/ips/not-a-uuid`)).status).toBe(422);
  });
});
