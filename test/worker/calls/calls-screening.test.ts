// The call's screening where people read it (issue 32): GET /calls filters identity_status and
// attestation (a value outside the contract: 422 naming the parameter); the list, the detail and
// the inspector show the attestation, the identity status and reason and the screening result
// (each flag's rule, detail and action, the action admission took); a call never screened shows
// nulls. The rows are written as admission writes them (schema/calls.ts, schema/screening.ts).
import { describe, expect, it } from "vitest";
import { insertCall } from "../fixtures/call-record.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";
import { bodyOf, expectStatus, firstOf, issuesOf } from "../fixtures/client.ts";

const REFUSED = {
  identity: {
    status: "failed",
    reason: "bad_signature",
    attestation: "A",
    orig_tn: "14155550100",
    dest_tn: ["442079460000"],
    iat: 1_795_000_000,
    origid: "4437c7eb-8f7a-4f0e-a863-f53a0e60251a",
    x5u: "https://cert.carrier.test/shaken.pem",
    verstat: null,
  },
  flags: [
    { rule: "identity_failed", detail: "The PASSporT's signature did not verify", action: "flag" },
    { rule: "calls_per_minute", detail: "31 calls in a minute from +14155550100", action: "refuse" },
  ],
  action: "refuse",
  rule: "calls_per_minute",
};

const failedCall = (owner: Session) =>
  insertCall(owner, {
    status: "rejected",
    answered_at: null,
    billsec: 0,
    sip_code: 603,
    attestation: "A",
    identity_status: "failed",
    identity_reason: "bad_signature",
    screening: REFUSED,
  });

async function idsOf(owner: Session, query: string): Promise<string[]> {
  const res = await owner.client.get(`/api/calls?${query}`);
  expectStatus(res, 200);
  return res.body.items.map((c) => c.id).sort();
}

describe("GET /api/calls and the screening", () => {
  it("filters identity_status and attestation, alone and together", async () => {
    const owner = await createAccount();
    const failed = await failedCall(owner);
    const verified = await insertCall(owner, { attestation: "A", identity_status: "verified" });
    const gateway = await insertCall(owner, { attestation: "C", identity_status: "verified" });
    const absent = await insertCall(owner, { identity_status: "absent" });
    await insertCall(owner); // never screened
    expect(await idsOf(owner, "identity_status=failed")).toEqual([failed.id]);
    expect(await idsOf(owner, "identity_status=verified")).toEqual([verified.id, gateway.id].sort());
    expect(await idsOf(owner, "identity_status=absent")).toEqual([absent.id]);
    expect(await idsOf(owner, "attestation=A")).toEqual([failed.id, verified.id].sort());
    expect(await idsOf(owner, "attestation=C&identity_status=verified")).toEqual([gateway.id]);
    expect(await idsOf(owner, "attestation=B")).toEqual([]);
    // Another account's failed calls are not this one's.
    const stranger = await createAccount();
    expect(await idsOf(stranger, "identity_status=failed")).toEqual([]);
  });

  it("answers 422 naming the parameter for a value outside the contract", async () => {
    const owner = await createAccount();
    for (const [query, param, msg] of [
      ["identity_status=unknown", "identity_status", "identity_status must be one of verified, failed, absent"],
      ["attestation=D", "attestation", "attestation must be one of A, B, C"],
      ["attestation=a", "attestation", "attestation must be one of A, B, C"],
    ] as const) {
      const res = await owner.client.get(`/api/calls?${query}`);
      expectStatus(res, 422, query);
      const issue = firstOf(issuesOf(res.body), "an issue");
      expect(issue.loc.slice(0, 2), query).toEqual(["query", param]);
      expect(issue.msg, query).toBe(msg);
    }
  });

  it("shows each call's attestation, identity and screening result in the list and the detail", async () => {
    const owner = await createAccount();
    const failed = await failedCall(owner);
    const plain = await insertCall(owner);
    const items = bodyOf(await owner.client.get("/api/calls"), 200).items;
    const shown = items.find((c) => c.id === failed.id)!;
    expect(shown).toMatchObject({ attestation: "A", identity_status: "failed", identity_reason: "bad_signature", screening: REFUSED });
    expect(items.find((c) => c.id === plain.id)).toMatchObject({
      attestation: null,
      identity_status: null,
      identity_reason: null,
      screening: null,
    });

    const detail = bodyOf(await owner.client.get(`/api/calls/${failed.id}`), 200);
    expect(detail).toMatchObject({ attestation: "A", identity_status: "failed", identity_reason: "bad_signature" });
    expect(detail.screening).toEqual(REFUSED);
    expect(detail.screening!.flags.map((f) => [f.rule, f.action])).toEqual([
      ["identity_failed", "flag"],
      ["calls_per_minute", "refuse"],
    ]);
    expect(bodyOf(await owner.client.get(`/api/calls/${plain.id}`), 200).screening).toBeNull();
  });

  it("reads a screening result the contract does not know as none, never failing the call", async () => {
    const owner = await createAccount();
    const odd = await insertCall(owner, { attestation: "Z", identity_status: "maybe", screening: { flags: "many" } });
    const detail = bodyOf(await owner.client.get(`/api/calls/${odd.id}`), 200);
    expect(detail).toMatchObject({ attestation: null, identity_status: null, screening: null });
  });

  it("the inspector shows the identity with the call's facts and the screening beside them", async () => {
    const owner = await createAccount();
    const failed = await failedCall(owner);
    const res = await owner.client.get(`/api/calls/${failed.id}/inspect`);
    expectStatus(res, 200);
    expect(res.body.call).toMatchObject({ attestation: "A", identity_status: "failed", identity_reason: "bad_signature" });
    expect(res.body.screening).toEqual(REFUSED);
    const plain = await insertCall(owner);
    const none = bodyOf(await owner.client.get(`/api/calls/${plain.id}/inspect`), 200);
    expect(none.call).toMatchObject({ attestation: null, identity_status: null, identity_reason: null });
    expect(none.screening).toBeNull();
  });
});
