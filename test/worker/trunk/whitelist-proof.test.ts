// Proof of control of a whitelist range (issue 20, finding 4): the codes the nodes hand out, a proven
// claim displacing an unproven one, and an administrator's approval.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ipToHex } from "../../../schema/cidr.ts";
import type { WhitelistSnapshot } from "../../../schema/node-api.ts";
import { loadConfig } from "../../../worker/env.ts";
import { accountHolding, admissionStateOf } from "../../../worker/services/trunk/admission-state.ts";
import { proofCode } from "../../../worker/services/trunk/whitelist-proof.ts";
import { newApp } from "../../../worker/app.ts";
import { bodyOf, expectStatus, firstOf, issuesOf } from "../fixtures/client.ts";
import { createAccount, latestMailTo, makePlatformAdmin, testServices, type Session } from "../fixtures/factory.ts";
import { addWhitelistEntry, v4Block, v4Wide, whitelistRowById, whitelistRowsOf } from "../fixtures/network.ts";
import { addDestination } from "../fixtures/destination.ts";
import { node } from "../fixtures/node-client.ts";

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
    const squatterCode = await proofCode(loadConfig(env), squatted.id, (await whitelistRowById(squatted.id))!.proof_nonce);
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
    expect(await whitelistRowsOf(owner)).toHaveLength(100);
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
