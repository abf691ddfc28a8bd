// Screening's REST operations (our extension): the rules with their defaults, PUT's checks (422
// naming the field, nothing stored), the do-not-originate list (E.164, bulk, paged, another
// account's number not found) and the counts per rule.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RULE_DEFAULTS, RULE_NAMES } from "../../../schema/screening.ts";
import { bodyOf, expectStatus, firstOf, issuesOf, request } from "../fixtures/client.ts";
import { addDestination } from "../fixtures/destination.ts";
import { createAccount, type Session } from "../fixtures/factory.ts";

const rulesOf = async (owner: Session) => bodyOf(await owner.client.get("/api/customer/screening/rules"), 200);
const storedRules = (owner: Session) =>
  env.DB.prepare("SELECT rules FROM screening_settings WHERE customer_id = ?").bind(owner.account.id).first<{ rules: string }>();
const dnoCount = async (owner: Session) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM do_not_originate WHERE customer_id = ?").bind(owner.account.id).first<{ n: number }>())!
    .n;
/** What the account's ledger holds of the settings (admission reads them there, never D1). */
const ledgerScreening = async (owner: Session) => {
  const ledger = env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(owner.account.id));
  return runInDurableObject(ledger, (_, state) => {
    const row = state.storage.sql.exec<{ state: string }>("SELECT state FROM admission_state").toArray()[0];
    return row ? (JSON.parse(row.state).screening as { rules: Record<string, any>; doNotOriginate: string[] }) : null;
  });
};

describe("screening rules", () => {
  it("lists every rule with its defaults until the account changes them", async () => {
    const owner = await createAccount();
    const body = await rulesOf(owner);
    expect(body.updated_at).toBeNull();
    expect(Object.keys(body.rules).sort()).toEqual([...RULE_NAMES].sort());
    for (const rule of RULE_NAMES) expect(body.rules[rule]).toMatchObject({ ...RULE_DEFAULTS[rule], description: expect.any(String) });
    expect(body.rules.calls_per_minute).toMatchObject({ action: "flag", scope: "caller_id", threshold: 30 });
  });

  it("sets the rules named, fills the rest with defaults, and hands them to the ledger", async () => {
    const owner = await createAccount();
    const honeypot = await addDestination(owner, { label: "Honeypot" });
    const put = await owner.client.put("/api/customer/screening/rules", {
      rules: {
        calls_per_minute: { action: "refuse", threshold: 50 },
        sequential_dialling: { action: "divert", divert_destination_id: honeypot.id, scope: "source" },
        unverified_domestic: { action: "flag" },
      },
    });
    const body = bodyOf(put, 200);
    expect(body.rules.calls_per_minute).toMatchObject({ action: "refuse", threshold: 50, scope: "caller_id" });
    expect(body.rules.sequential_dialling).toMatchObject({
      action: "divert",
      divert_destination_id: honeypot.id,
      scope: "source",
      threshold: 10,
    });
    expect(body.rules.unverified_domestic.action).toBe("flag");
    expect(body.rules.invalid_caller_id.action).toBe("flag");
    expect(body.updated_at).toEqual(expect.any(String));
    expect(await rulesOf(owner)).toEqual(body);
    // Only what differs from the defaults is stored.
    expect(JSON.parse((await storedRules(owner))!.rules)).toEqual({
      calls_per_minute: { action: "refuse", threshold: 50 },
      sequential_dialling: { action: "divert", divert_destination_id: honeypot.id, scope: "source" },
      unverified_domestic: { action: "flag" },
    });
    const held = await ledgerScreening(owner);
    expect(held?.rules.calls_per_minute).toMatchObject({ action: "refuse", threshold: 50 });

    // A rule left out returns to its defaults.
    const again = bodyOf(
      await owner.client.put("/api/customer/screening/rules", { rules: { unverified_domestic: { action: "refuse" } } }),
      200,
    );
    expect(again.rules.calls_per_minute).toMatchObject({ action: "flag", threshold: 30 });
    expect((await ledgerScreening(owner))?.rules.calls_per_minute).toMatchObject({ action: "flag", threshold: 30 });
  });

  it("refuses what it cannot apply with 422 naming the field, storing nothing", async () => {
    const owner = await createAccount();
    const refused = async (rules: Record<string, unknown>, loc: (string | number)[]) => {
      const res = await owner.client.put("/api/customer/screening/rules", { rules });
      expectStatus(res, 422);
      expect(issuesOf(res.body).map((i) => i.loc)).toContainEqual(["body", "rules", ...loc]);
      return res;
    };
    await refused({ calls_per_minute: { threshold: 0 } }, ["calls_per_minute", "threshold"]);
    await refused({ short_call_share: { threshold: 100 } }, ["short_call_share", "threshold"]);
    await refused({ sequential_dialling: { threshold: 1 } }, ["sequential_dialling", "threshold"]);
    await refused({ short_call_share: { short_seconds: 601 } }, ["short_call_share", "short_seconds"]);
    await refused({ concurrent_calls: { scope: "everyone" } }, ["concurrent_calls", "scope"]);
    await refused({ calls_per_minute: { prefix: "1-800" } }, ["calls_per_minute", "prefix"]);
    await refused({ invalid_caller_id: { threshold: 3 } }, ["invalid_caller_id"]);
    await refused({ no_such_rule: { action: "flag" } }, []);
    await refused({ verstat_failed: { action: "block" } }, ["verstat_failed", "action"]);
    const noTarget = await refused({ identity_failed: { action: "divert" } }, ["identity_failed", "divert_destination_id"]);
    expect(issuesOf(noTarget.body)[0]?.msg).toBe("divert_destination_id is required when action is 'divert'");
    const foreign = await addDestination(await createAccount());
    const other = await refused(
      { calls_per_minute: { action: "refuse" }, identity_failed: { action: "divert", divert_destination_id: foreign.id } },
      ["identity_failed", "divert_destination_id"],
    );
    expect(issuesOf(other.body)[0]?.msg).toBe("divert destination not found on this account");
    expect(await storedRules(owner)).toBeNull();
    expect((await rulesOf(owner)).rules.calls_per_minute.action).toBe("flag");
  });
});

describe("the do-not-originate list", () => {
  it("adds one number or many in E.164, lists them paged and removes one", async () => {
    const owner = await createAccount();
    const one = bodyOf(
      await owner.client.post("/api/customer/screening/do-not-originate", { number: "+1 (415) 555-0100", label: "Support line" }),
      201,
    );
    expect(one).toMatchObject({ added: 1, already_listed: 0, items: [{ number: "+14155550100", label: "Support line" }] });
    const numbers = Array.from({ length: 120 }, (_, i) => `44207946${String(i).padStart(4, "0")}`);
    const many = bodyOf(
      await owner.client.post("/api/customer/screening/do-not-originate", { numbers: [...numbers, "0014155550100"] }),
      201,
    );
    expect(many).toMatchObject({ added: 120, already_listed: 1 });
    expect(many.items[0]!.number).toMatch(/^\+44207946\d{4}$/);
    const page = bodyOf(await owner.client.get("/api/customer/screening/do-not-originate?limit=50&offset=100"), 200);
    expect(page).toMatchObject({ total: 121, limit: 50, offset: 100 });
    expect(page.items).toHaveLength(21);
    expect((await ledgerScreening(owner))?.doNotOriginate).toHaveLength(121);

    const removed = await owner.client.delete(`/api/customer/screening/do-not-originate/${firstOf(one.items).id}`);
    expectStatus(removed, 204);
    expect(await dnoCount(owner)).toBe(120);
    expect((await ledgerScreening(owner))?.doNotOriginate).not.toContain("+14155550100");
  });

  it("takes 10,000 numbers in one request, and no body over 512 KiB", async () => {
    const owner = await createAccount();
    const numbers = Array.from({ length: 10_000 }, (_, i) => `+1212555${String(i).padStart(4, "0")}`);
    const added = bodyOf(await owner.client.post("/api/customer/screening/do-not-originate", { numbers, label: "Inbound only" }), 201);
    expect(added).toMatchObject({ added: 10_000, already_listed: 0 });
    expect(await dnoCount(owner)).toBe(10_000);
    expect((await ledgerScreening(owner))?.doNotOriginate).toHaveLength(10_000);
    // The upload's own body limit, 512 KiB, before anything is parsed.
    const huge = await request("POST", "/api/customer/screening/do-not-originate", {
      rawBody: JSON.stringify({ numbers: ["+1".padEnd(600_000, "2")] }),
      token: owner.token,
    });
    expect(huge).toMatchObject({ status: 413, body: { detail: "The request body is larger than 524288 bytes" } });
    expect(await dnoCount(owner)).toBe(10_000);
  });

  it("refuses the whole request naming each bad number, storing nothing", async () => {
    const owner = await createAccount();
    const res = await owner.client.post("/api/customer/screening/do-not-originate", {
      numbers: ["+14155550100", "not a number", "+15551234567", "02079460000"],
    });
    expectStatus(res, 422);
    expect(issuesOf(res.body).map((i) => i.loc)).toEqual([
      ["body", "numbers", 1],
      ["body", "numbers", 2],
      ["body", "numbers", 3],
    ]);
    expect(issuesOf(res.body)[1]?.msg).toBe("+15551234567 is not a valid phone number in international form");
    const single = await owner.client.post("/api/customer/screening/do-not-originate", { number: "12" });
    expectStatus(single, 422);
    expect(issuesOf(single.body)[0]?.loc).toEqual(["body", "number"]);
    const tooMany = await owner.client.post("/api/customer/screening/do-not-originate", {
      numbers: Array.from({ length: 10_001 }, () => "+14155550100"),
    });
    expectStatus(tooMany, 422);
    expect(await dnoCount(owner)).toBe(0);
  });

  it("does not find another account's number", async () => {
    const [owner, other] = await Promise.all([createAccount(), createAccount()]);
    const added = bodyOf(await owner.client.post("/api/customer/screening/do-not-originate", { number: "+14155550100" }), 201);
    const res = await other.client.delete(`/api/customer/screening/do-not-originate/${firstOf(added.items).id}`);
    expect(res).toMatchObject({ status: 404, body: { detail: "Number not found" } });
    expect(bodyOf(await other.client.get("/api/customer/screening/do-not-originate"), 200).total).toBe(0);
    expect(await dnoCount(owner)).toBe(1);
  });
});

describe("screening stats", () => {
  it("list every rule, zero before any call", async () => {
    const owner = await createAccount();
    const body = bodyOf(await owner.client.get("/api/customer/screening/stats"), 200);
    expect(body.rules.map((r) => r.rule)).toEqual(RULE_NAMES);
    expect(body.rules.every((r) => r.refused === 0 && r.flagged === 0 && r.diverted === 0 && r.last_at === null)).toBe(true);
  });
});
