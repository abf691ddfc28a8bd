// The trunk whitelist (spec: Whitelist entry, /customer/ips, /customer/network-info) and the
// TrunkRegistry that keeps address space of different accounts from overlapping.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ipToHex, overlaps, parseCidr, type Cidr } from "../../../schema/cidr.ts";
import type { WhitelistSnapshot } from "../../../schema/node-api.ts";
import { loadConfig } from "../../../worker/env.ts";
import { accountHolding, admissionStateOf } from "../../../worker/services/trunk/admission-state.ts";
import { proofCode } from "../../../worker/services/trunk/whitelist-proof.ts";
import type { Registry } from "../../../worker/services/context.ts";
import { Unavailable } from "../../../worker/services/errors.ts";
import { newApp } from "../../../worker/app.ts";
import { createIpEntry, deleteIpEntry, updateIpEntry } from "../../../worker/services/trunk/whitelist.ts";
import { bodyOf, expectStatus, firstOf, issuesOf, request } from "../fixtures/client.ts";
import { createAccount, latestMailTo, makePlatformAdmin, principalOf, testServices, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, insertDestination, registry, v4Block, v4Wide, v6Block } from "../fixtures/network.ts";
import { addDestination } from "../fixtures/destination.ts";
import { node } from "../fixtures/node-client.ts";

const OVERLAP = { detail: "CIDR overlaps a range registered to another account" };
const EXISTS = { detail: "Entry already exists" };
const NOT_FOUND = { detail: "IP entry not found" };

type Row = { id: string; customer_id: string; cidr: string; ip_version: number; range_start: string; range_end: string };

const rowsOf = async (session: Session) =>
  (await env.DB.prepare("SELECT * FROM whitelist_ips WHERE customer_id = ? ORDER BY id").bind(session.account.id).all<Row>()).results;

const rowById = (id: string) => env.DB.prepare("SELECT * FROM whitelist_ips WHERE id = ?").bind(id).first<Row>();

/** The registry holds exactly the account's D1 rows, range for range. */
async function expectRegistryAgrees(session: Session) {
  const rows = await rowsOf(session);
  const claims = await registry().claimsOf(session.account.id);
  expect(claims.map((c) => [c.entryId, c.start, c.end]).sort()).toEqual(rows.map((r) => [r.id, r.range_start, r.range_end]).sort());
}

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
      const row = (await rowById(entry.id))!;
      const expected = range(canonical);
      expect(row).toMatchObject({ cidr: canonical, ip_version: version, range_start: expected.start, range_end: expected.end });
    }
    expect((await rowById(bodyOf(await owner.client.get("/api/customer/ips"), 200)[3]?.id ?? ""))!.range_start).toBe(
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
    expect(await rowsOf(owner)).toEqual([]);
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
    expect(await rowsOf(owner)).toEqual([]);
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
    expect(await rowsOf(owner)).toHaveLength(5);
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
    expect(await rowsOf(owner)).toHaveLength(3);
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
    expect(await rowsOf(b)).toEqual([]);
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
    expect(bodyOf(await a.client.get("/api/customer/ips"), 200).map((e: any) => e.id)).toEqual([third.id, second.id, first.id]);
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
    const before = (await rowById(entry.id))!;

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
    const after = (await rowById(entry.id))!;
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
    expect(bodyOf(await owner.client.get(`/api/customer/ips`), 200).find((e: any) => e.id === other.id)).toEqual(other);
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
    expect(await rowById(entry.id)).toBeNull();
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

describe("TrunkRegistry", () => {
  it("raises the whitelist version on every change, and not on a refused one", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const version = () => registry().version();
    const { base } = v4Block();

    const v0 = await version();
    const entry = await addWhitelistEntry(a, `${base}.0/24`);
    const v1 = await version();
    expect(v1).toBeGreaterThan(v0);
    await a.client.patch(`/api/customer/ips/${entry.id}`, { label: "renamed" });
    const v2 = await version();
    expect(v2).toBeGreaterThan(v1);
    expect((await b.client.post("/api/customer/ips", { cidr: `${base}.1` })).status).toBe(409);
    await a.client.delete(`/api/customer/ips/${entry.id}`);
    const v3 = await version();
    expect(v3).toBeGreaterThan(v2);
  });

  it("claims by value: overlap only across accounts, idempotent by entry, release and touch bump", async () => {
    const reg = registry();
    const a = crypto.randomUUID();
    const b = crypto.randomUUID();
    const { base } = v4Block();
    const net = range(`${base}.0/24`);
    const host = range(`${base}.200`);
    const first = await reg.claim({ entryId: `${a}-1`, customerId: a, ...net });
    expect(first).toMatchObject({ ok: true });
    const again = await reg.claim({ entryId: `${a}-1`, customerId: a, ...net });
    expect(again.ok).toBe(true);
    expect(await reg.claim({ entryId: `${a}-2`, customerId: a, ...host })).toMatchObject({ ok: true });
    expect(await reg.claim({ entryId: `${b}-1`, customerId: b, ...host })).toEqual({ ok: false, reason: "overlap" });
    expect(await reg.claim({ entryId: `${a}-1`, customerId: b, ...range(v4Block().cidr) })).toEqual({ ok: false, reason: "overlap" });
    expect(await reg.claim({ entryId: `${b}-2`, customerId: b, start: net.end, end: net.start })).toEqual({
      ok: false,
      reason: "invalid_range",
    });
    expect((await reg.claimsOf(a)).map((c) => c.entryId)).toEqual([`${a}-1`, `${a}-2`]);

    const before = await reg.version();
    const touched = await reg.touch();
    expect(touched.version).toBeGreaterThan(before);
    const released = await reg.release(`${a}-1`);
    expect(released.version).toBeGreaterThan(touched.version);
    // Releasing what is not held is no change.
    expect((await reg.release(`${a}-1`)).version).toBeGreaterThanOrEqual(released.version);
    expect(await reg.claim({ entryId: `${b}-1`, customerId: b, ...host })).toEqual({ ok: false, reason: "overlap" });
    await reg.release(`${a}-2`);
    expect(await reg.claim({ entryId: `${b}-1`, customerId: b, ...host })).toMatchObject({ ok: true });
    await reg.release(`${b}-1`);
    expect(await reg.claimsOf(a)).toEqual([]);
  });

  it("lets exactly one of two racing accounts have overlapping ranges, round after round", async () => {
    const shapes: ((b: string) => [string, string])[] = [
      (b) => [`${b}.0/24`, `${b}.128/25`],
      (b) => [`${b}.128/25`, `${b}.0/24`],
      (b) => [`${b}.0/24`, `${b}.0/24`],
      (b) => [`${b}.0/24`, `${b}.255`],
      (b) => [`${b}.64/26`, `${b}.0/25`],
      (b) => [`${b}.17`, `${b}.17/32`],
    ];
    const v6shapes: ((b: string) => [string, string])[] = [(b) => [`${b}::/48`, `${b}:ff00::/56`], (b) => [`${b}::1`, `${b}::/64`]];
    for (let round = 0; round < 3; round++) {
      const a = await createAccount();
      const b = await createAccount();
      const pairs = [...shapes.map((s) => s(v4Block().base)), ...v6shapes.map((s) => s(v6Block().base))];
      for (const [i, [x, y]] of pairs.entries()) {
        // Alternate who sends first, so neither side wins by position.
        const [ra, rb] =
          (round + i) % 2 === 0
            ? await Promise.all([a.client.post("/api/customer/ips", { cidr: x }), b.client.post("/api/customer/ips", { cidr: y })])
            : (
                await Promise.all([b.client.post("/api/customer/ips", { cidr: y }), a.client.post("/api/customer/ips", { cidr: x })])
              ).reverse();
        const statuses = [ra!.status, rb!.status].sort();
        expect(statuses, `${x} vs ${y}`).toEqual([201, 409]);
        expect([ra, rb].find((r) => r!.status === 409)!.body).toEqual(OVERLAP);
      }
      const rowsA = await rowsOf(a);
      const rowsB = await rowsOf(b);
      expect(rowsA.length + rowsB.length).toBe(pairs.length);
      for (const ra of rowsA)
        for (const rb of rowsB)
          expect(overlaps({ start: ra.range_start, end: ra.range_end }, { start: rb.range_start, end: rb.range_end })).toBe(false);
      await expectRegistryAgrees(a);
      await expectRegistryAgrees(b);
    }
  });

  it("lets exactly one of many accounts racing for the same address space win", async () => {
    const accounts = await Promise.all(Array.from({ length: 5 }, () => createAccount()));
    for (let round = 0; round < 3; round++) {
      const { base } = v4Block();
      // Every candidate holds .1, so any two overlap.
      const cidrs = [`${base}.0/24`, `${base}.0/25`, `${base}.0/26`, `${base}.1`, `${base}.0/24`];
      const replies = await Promise.all(accounts.map((s, i) => s.client.post("/api/customer/ips", { cidr: cidrs[(i + round) % 5] })));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 409).map((r) => r.body)).toEqual([OVERLAP, OVERLAP, OVERLAP, OVERLAP]);
    }
    for (const s of accounts) await expectRegistryAgrees(s);
    const held = (await Promise.all(accounts.map(rowsOf))).flat();
    expect(held).toHaveLength(3);
  });
});

describe("a registry that cannot be reached in time", () => {
  const stalled = (): Registry & { released: string[] } => {
    const released: string[] = [];
    const never = new Promise<never>(() => {});
    return {
      released,
      claim: () => never,
      touch: () => never,
      prove: () => never,
      version: () => never,
      release: async (entryId: string) => {
        released.push(entryId);
        return never;
      },
    };
  };

  it("answers 503 Whitelist busy, retry on create, stores nothing, and takes the late claim back", async () => {
    const owner = await createAccount();
    const reg = stalled();
    const { cidr } = v4Block();
    const waiting = createIpEntry(testServices({ registry: reg, registryTimeoutMs: 50 }), await principalOf(owner), {
      cidr,
      enabled: true,
    });
    await expect(waiting).rejects.toEqual(new Unavailable("Whitelist busy, retry"));
    expect(await rowsOf(owner)).toEqual([]);
    await new Promise((r) => setTimeout(r, 10));
    expect(reg.released).toHaveLength(1);
  });

  it("answers 503 when the registry call fails outright", async () => {
    const owner = await createAccount();
    const failing: Registry = {
      claim: async () => {
        throw new Error("Durable Object reset");
      },
      touch: async () => ({ version: 0 }),
      release: async () => ({ version: 0 }),
      prove: async () => ({ ok: false, reason: "unknown_entry" }),
      version: async () => 0,
    };
    const res = createIpEntry(testServices({ registry: failing, registryTimeoutMs: 50 }), await principalOf(owner), {
      cidr: v4Block().cidr,
      enabled: true,
    });
    await expect(res).rejects.toEqual(new Unavailable("Whitelist busy, retry"));
    expect(await rowsOf(owner)).toEqual([]);
  });

  it("answers 503 on delete and keeps the entry, so a retry finishes the job", async () => {
    const owner = await createAccount();
    const entry = await addWhitelistEntry(owner, v4Block().cidr);
    const services = testServices({ registry: stalled(), registryTimeoutMs: 50 });
    const principal = await principalOf(owner);
    await expect(deleteIpEntry(services, principal, entry.id)).rejects.toEqual(new Unavailable("Whitelist busy, retry"));
    expect((await owner.client.get("/api/customer/ips")).body).toEqual([entry]);
    await expect(updateIpEntry(services, principal, entry.id, { label: "x" })).rejects.toEqual(new Unavailable("Whitelist busy, retry"));
    expect((await owner.client.delete(`/api/customer/ips/${entry.id}`)).status).toBe(204);
    await expectRegistryAgrees(owner);
  });
});

describe("proof of control (issue 20, finding 4)", () => {
  const snapshot = async () => (await node.get("/whitelist?since=-1")).body as WhitelistSnapshot;
  /** What the node's 200 to an OPTIONS from `ip` carries in X-Call-Shield-Proof: the codes of every unproven range holding it. */
  const proofHeaderFor = async (ip: string) => {
    const hex = ipToHex(ip)!;
    return (await snapshot())
      .proofs!.filter((p) => p.start <= hex && hex <= p.end)
      .map((p) => p.code)
      .join(", ");
  };
  const rangesHolding = async (ip: string) => {
    const hex = ipToHex(ip)!;
    return (await snapshot()).ranges!.filter((r) => r.start <= hex && hex <= r.end).map((r) => r.customer_id);
  };

  it("lets a proven claim displace a squatter's: the squatter's calls from the range stop and it is told by mail", async () => {
    const squatter = await createAccount();
    const carrier = await createAccount();
    const { base, cidr } = v4Block();
    const squatted = await addWhitelistEntry(squatter, cidr);
    expect(squatted).toMatchObject({ admits_calls: true, verification: "unverified" });
    await addDestination(squatter, { is_default: true });
    const before = await node.admit({ src_ip: `${base}.7`, dialed: "14155550123", customer_id: squatter.account.id });
    expect(before.body.decision, JSON.stringify(before.body)).not.toBe("ignore");
    expect(await rangesHolding(`${base}.7`)).toEqual([squatter.account.id]);
    expect(await accountHolding(testServices().db, `${base}.7`)).toBe(squatter.account.id);

    // The spec's answer stands; contesting is asked for.
    expect((await carrier.client.post("/api/customer/ips", { cidr })).status).toBe(409);
    const contested = await addWhitelistEntry(carrier, cidr, { contest: true });
    expect(contested).toMatchObject({ admits_calls: false, verification: "unverified" });
    expect(contested.pending_reason).toMatch(/overlaps another account's unproven claim/);
    expect(await rangesHolding(`${base}.7`)).toEqual([squatter.account.id]);

    // A wrong code changes nothing.
    const wrong = await carrier.client.post(`/api/customer/ips/${contested.id}/verify`, { code: "0000000000000000" });
    expectStatus(wrong, 422);
    expect(issuesOf(wrong.body)[0]?.loc).toEqual(["body", "code"]);

    // The carrier's SBC sends an OPTIONS from the range; our answer's header goes to the carrier.
    const header = await proofHeaderFor(`${base}.7`);
    const verified = await carrier.client.post(`/api/customer/ips/${contested.id}/verify`, { code: header });
    expectStatus(verified, 200);
    expect(verified.body).toMatchObject({ admits_calls: true, pending_reason: null, verification: "verified" });
    expect(verified.body.verified_at).not.toBeNull();

    const displaced = firstOf(bodyOf(await squatter.client.get("/api/customer/ips"), 200));
    expect(displaced).toMatchObject({ id: squatted.id, admits_calls: false });
    expect(displaced.pending_reason).toMatch(/^displaced/);
    expect(await latestMailTo(squatter.email)).toContain(cidr);
    expect(await rangesHolding(`${base}.7`)).toEqual([carrier.account.id]);
    expect(await accountHolding(testServices().db, `${base}.7`)).toBe(carrier.account.id);
    // The squatter's account admits nothing from the range any more, even from a node whose copy is stale.
    expect((await admissionStateOf(testServices().db, squatter.account.id))!.entries).toEqual([]);
    const after = await node.admit({ src_ip: `${base}.7`, dialed: "14155550123", customer_id: squatter.account.id });
    expect(after.body).toEqual({ decision: "ignore" });
    expect((await admissionStateOf(testServices().db, carrier.account.id))!.entries.map((e) => e.id)).toEqual([contested.id]);

    // The squatter cannot take it back, even holding its own code, nor claim over a proven range.
    const squatterCode = await proofCode(loadConfig(env), squatted.id, ((await rowById(squatted.id)) as any).proof_nonce);
    const back = await squatter.client.post(`/api/customer/ips/${squatted.id}/verify`, { code: squatterCode });
    expectStatus(back, 409);
    expect(back.body).toEqual({ detail: "Another account has proven control of an overlapping range" });
    const again = await squatter.client.post("/api/customer/ips", { cidr: `${base}.0/25`, contest: true });
    expectStatus(again, 409);
  });

  it("admits a range wider than /24 only once verified or approved by an administrator", async () => {
    const owner = await createAccount();
    const wide = v4Wide();
    const base = wide.split(".").slice(0, 2).join(".");
    const entry = await addWhitelistEntry(owner, wide);
    expect(entry).toMatchObject({ admits_calls: false, verification: "unverified" });
    expect(entry.pending_reason).toMatch(/wider than \/24/);
    expect(await rangesHolding(`${base}.9.9`)).toEqual([]);
    expect((await proofHeaderFor(`${base}.9.9`)).length).toBeGreaterThan(0);

    expect((await owner.client.post(`/api/admin/ips/${entry.id}/approve`)).status).toBe(403);
    const admin = await createAccount();
    await makePlatformAdmin(admin);
    const approved = await admin.client.post(`/api/admin/ips/${entry.id}/approve`);
    expectStatus(approved, 200);
    expect(approved.body).toMatchObject({ id: entry.id, admits_calls: true, verification: "approved" });
    expect(await rangesHolding(`${base}.9.9`)).toEqual([owner.account.id]);
    expect(await proofHeaderFor(`${base}.9.9`)).toBe("");
  });

  /** POST /api/customer/ips and PATCH under the production limits (the tests' Worker lifts them for the fixtures). */
  const limited = { ...env, WHITELIST_MAX_ENTRIES: "100", WHITELIST_WRITES_PER_MINUTE: "30" };
  const send = (session: Session, method: string, path: string, body: unknown) =>
    newApp().request(
      `https://api.test/api${path}`,
      { method, headers: { Authorization: `Bearer ${session.token}`, "content-type": "application/json" }, body: JSON.stringify(body) },
      limited,
    );

  it("caps an account at 100 entries (409), storing nothing more", async () => {
    const owner = await createAccount();
    const statements = Array.from({ length: 100 }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO whitelist_ips (id, customer_id, cidr, ip_version, range_start, range_end, enabled, created_at, updated_at) VALUES (?, ?, ?, 4, ?, ?, 1, ?, ?)",
      ).bind(
        crypto.randomUUID(),
        owner.account.id,
        `192.0.2.${i}/32`,
        `cap-${i}`,
        `cap-${i}`,
        new Date().toISOString(),
        new Date().toISOString(),
      ),
    );
    await env.DB.batch(statements);
    const res = await send(owner, "POST", "/customer/ips", { cidr: v4Block().cidr });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: "Maximum number of IP entries reached" });
    expect(await rowsOf(owner)).toHaveLength(100);
  });

  it("limits whitelist writes to 30 a minute per account (429 with Retry-After)", async () => {
    const owner = await createAccount();
    const entry = await addWhitelistEntry(owner, v4Block().cidr);
    const statuses = [];
    // The creation was the first write of the minute.
    for (let i = 0; i < 30; i++) statuses.push((await send(owner, "PATCH", `/customer/ips/${entry.id}`, { label: `n${i}` })).status);
    expect(statuses.slice(0, 29).every((s) => s === 200)).toBe(true);
    expect(statuses[29]).toBe(429);
    const refused = await send(owner, "POST", "/customer/ips", { cidr: v4Block().cidr });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});
