// The TrunkRegistry that keeps address space of different accounts from overlapping: its version,
// its claims as D1 holds them, and what a whitelist change does when it cannot be reached in time.
import { describe, expect, it } from "vitest";
import { overlaps, parseCidr, type Cidr } from "../../../schema/cidr.ts";
import type { Registry } from "../../../worker/services/context.ts";
import { Unavailable } from "../../../worker/services/errors.ts";
import { createIpEntry, deleteIpEntry, updateIpEntry } from "../../../worker/services/trunk/whitelist.ts";
import { createAccount, principalOf, testServices } from "../fixtures/factory.ts";
import { addWhitelistEntry, expectRegistryAgrees, registry, v4Block, v6Block, whitelistRowsOf } from "../fixtures/network.ts";

const OVERLAP = { detail: "CIDR overlaps a range registered to another account" };
const range = (cidr: string) => parseCidr(cidr) as Cidr;

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
      const rowsA = await whitelistRowsOf(a);
      const rowsB = await whitelistRowsOf(b);
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
    const held = (await Promise.all(accounts.map(whitelistRowsOf))).flat();
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
    expect(await whitelistRowsOf(owner)).toEqual([]);
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
    expect(await whitelistRowsOf(owner)).toEqual([]);
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
