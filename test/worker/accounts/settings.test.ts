// Account settings: tax id, data location, low-balance alert, billing address (and the tax it brings).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { putCallFeatures, putDataLocation } from "../../../worker/services/accounts/settings.ts";
import { sweepLowBalanceAlerts } from "../../../worker/services/alerts/low-balance.ts";
import { addMember, createAccount, principalOf, testServices, type Session } from "../fixtures/factory.ts";
import { bodyOf, expectStatus, issuesOf } from "../fixtures/client.ts";

const mailsTo = async (email: string) =>
  (await env.DB.prepare("SELECT subject FROM outbox_emails WHERE to_address = ?").bind(email).all<{ subject: string }>()).results;

const spend = (owner: Session, usd: number) =>
  testServices()
    .ledger(owner.account.id)
    .debit({ entryId: crypto.randomUUID(), type: "analysis", amountMicros: usd * 1_000_000, createdAt: new Date().toISOString() });

const topUp = (owner: Session, usd: number) =>
  testServices()
    .ledger(owner.account.id)
    .credit({ entryId: crypto.randomUUID(), type: "topup", amountMicros: usd * 1_000_000, createdAt: new Date().toISOString() });

describe("GET/PUT /api/customer/tax-id", () => {
  it("sets, shows on the account, and clears with null or an empty string", async () => {
    const owner = await createAccount();
    expect((await owner.client.get("/api/customer/tax-id")).body).toEqual({ tax_id: null });
    const set = await owner.client.put("/api/customer/tax-id", { tax_id: "  123456789RT0001 " });
    expectStatus(set, 200);
    expect(set.body).toEqual({ tax_id: "123456789RT0001" });
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).tax_id).toBe("123456789RT0001");
    expect((await owner.client.put("/api/customer/tax-id", { tax_id: "" })).body).toEqual({ tax_id: null });
    await owner.client.put("/api/customer/tax-id", { tax_id: "X" });
    expect((await owner.client.put("/api/customer/tax-id", { tax_id: null })).body).toEqual({ tax_id: null });
  });

  it("refuses a body without tax_id or one too long, naming the field, and keeps the old value", async () => {
    const owner = await createAccount();
    await owner.client.put("/api/customer/tax-id", { tax_id: "KEEP" });
    for (const body of [{}, { tax_id: "x".repeat(65) }, { tax_id: 12 }]) {
      const res = await owner.client.put("/api/customer/tax-id", body);
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]?.loc).toContain("tax_id");
    }
    expect((await owner.client.get("/api/customer/tax-id")).body).toEqual({ tax_id: "KEEP" });
  });
});

describe("GET/PUT /api/customer/data-location", () => {
  it("starts in ca and lists the regions the platform has", async () => {
    const owner = await createAccount();
    const res = await owner.client.get("/api/customer/data-location");
    expectStatus(res, 200);
    expect(res.body).toEqual({ data_region: "ca", media_region: "ca", data_regions: ["ca"], media_regions: ["ca"] });
  });

  it("refuses a region without a bucket or relay there, naming the field, and changes nothing", async () => {
    const owner = await createAccount();
    const data = await owner.client.put("/api/customer/data-location", { data_region: "eu" });
    expectStatus(data, 422);
    expect(issuesOf(data.body)[0]?.loc).toEqual(["body", "data_region"]);
    const media = await owner.client.put("/api/customer/data-location", { media_region: "us" });
    expectStatus(media, 422);
    expect(issuesOf(media.body)[0]?.loc).toEqual(["body", "media_region"]);
    expect((await owner.client.get("/api/auth/me")).body).toMatchObject({ data_region: "ca", media_region: "ca" });
  });

  it("accepts a configured region and updates only the field given", async () => {
    const owner = await createAccount();
    const base = testServices();
    const s = testServices({ config: { ...base.config, DATA_REGIONS: ["ca", "eu"], MEDIA_REGIONS: ["ca", "us"] } });
    const moved = await putDataLocation(s, await principalOf(owner), { data_region: "eu" });
    expect(moved).toMatchObject({ data_region: "eu", media_region: "ca" });
    const relay = await putDataLocation(s, await principalOf(owner), { media_region: "us" });
    expect(relay).toMatchObject({ data_region: "eu", media_region: "us", data_regions: ["ca", "eu"] });
    expect((await owner.client.get("/api/auth/me")).body).toMatchObject({ data_region: "eu", media_region: "us" });
    // The platform's own list (ca only here) still refuses what is not configured.
    expect((await owner.client.put("/api/customer/data-location", { data_region: "us" })).status).toBe(422);
  });
});

describe("GET/PUT /api/customer/low-balance-alert", () => {
  it("is on at US$5 for a new account, armed", async () => {
    const owner = await createAccount();
    expect((await owner.client.get("/api/customer/low-balance-alert")).body).toEqual({ enabled: true, threshold: 5, armed: true });
  });

  it("mails once when the balance falls below the threshold, again only after it is back above", async () => {
    const owner = await createAccount();
    const put = await owner.client.put("/api/customer/low-balance-alert", { threshold: 3 });
    expect(put.body).toEqual({ enabled: true, threshold: 3, armed: true });
    const s = testServices();
    const before = (await mailsTo(owner.email)).length;
    await sweepLowBalanceAlerts(s);
    expect(await mailsTo(owner.email)).toHaveLength(before); // balance 5 >= 3: nothing

    await spend(owner, 2.5); // balance 2.50 < 3
    await sweepLowBalanceAlerts(s);
    await sweepLowBalanceAlerts(s);
    const alerts = (await mailsTo(owner.email)).slice(before);
    expect(alerts).toEqual([{ subject: "Call Shield: your balance is US$2.50" }]);
    expect(bodyOf(await owner.client.get("/api/customer/low-balance-alert"), 200).armed).toBe(false);

    await topUp(owner, 10); // 12.50: re-armed by the next tick
    await sweepLowBalanceAlerts(s);
    expect(bodyOf(await owner.client.get("/api/customer/low-balance-alert"), 200).armed).toBe(true);
    await spend(owner, 10); // 2.50 again: a second mail
    await sweepLowBalanceAlerts(s);
    expect((await mailsTo(owner.email)).length - before).toBe(2);
  });

  it("switched off, sends nothing; a new threshold at or below the balance arms it at once", async () => {
    const owner = await createAccount();
    await owner.client.put("/api/customer/low-balance-alert", { enabled: false });
    await spend(owner, 4); // balance 1
    const before = (await mailsTo(owner.email)).length;
    await sweepLowBalanceAlerts(testServices());
    expect(await mailsTo(owner.email)).toHaveLength(before);

    const on = await owner.client.put("/api/customer/low-balance-alert", { enabled: true });
    expect(on.body).toEqual({ enabled: true, threshold: 5, armed: true });
    await sweepLowBalanceAlerts(testServices());
    expect(await mailsTo(owner.email)).toHaveLength(before + 1);
    expect(bodyOf(await owner.client.get("/api/customer/low-balance-alert"), 200).armed).toBe(false);
    // Balance 1: a threshold of 0.5 is at or below it, so the alert arms at once.
    const lower = await owner.client.put("/api/customer/low-balance-alert", { threshold: 0.5 });
    expect(lower.body).toEqual({ enabled: true, threshold: 0.5, armed: true });
  });

  it("refuses a negative or non-numeric threshold, naming the field", async () => {
    const owner = await createAccount();
    for (const body of [{ threshold: -1 }, { threshold: "ten" }, { enabled: "yes" }]) {
      const res = await owner.client.put("/api/customer/low-balance-alert", body);
      expectStatus(res, 422);
      expect(issuesOf(res.body)[0]?.loc).toEqual(["body", Object.keys(body)[0]]);
    }
    expect(bodyOf(await owner.client.get("/api/customer/low-balance-alert"), 200).threshold).toBe(5);
  });
});

describe("GET/PUT /api/customer/billing-address", () => {
  it("is unset and tax exempt for a new account", async () => {
    const owner = await createAccount();
    expect((await owner.client.get("/api/customer/billing-address")).body).toEqual({
      name: null,
      line1: null,
      line2: null,
      city: null,
      postal_code: null,
      country: null,
      province: null,
      tax_exempt: true,
      tax_components: [],
      tax_rate_pct: 0,
    });
  });

  it.each([
    ["ON", [{ name: "HST", rate_pct: 13 }], 13],
    ["NS", [{ name: "HST", rate_pct: 15 }], 15],
    ["QC", [{ name: "GST", rate_pct: 5 }], 5],
    ["AB", [{ name: "GST", rate_pct: 5 }], 5],
    [null, [{ name: "GST", rate_pct: 5 }], 5],
  ])("in Canada, province %s: %j", async (province, components, rate) => {
    const owner = await createAccount();
    const res = await owner.client.put("/api/customer/billing-address", { name: "Carrier", country: "ca", province });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ country: "CA", province, tax_exempt: false, tax_components: components, tax_rate_pct: rate });
    expect((await owner.client.get("/api/auth/me")).body).toMatchObject({ country: "CA", province });
  });

  it("outside Canada is exempt, and the whole address is replaced", async () => {
    const owner = await createAccount();
    await owner.client.put("/api/customer/billing-address", { line1: "1 Bay St", country: "CA", province: "ON" });
    const res = await owner.client.put("/api/customer/billing-address", {
      name: "US Carrier",
      city: "Austin",
      country: "US",
      province: "TX",
    });
    expect(res.body).toMatchObject({ name: "US Carrier", line1: null, city: "Austin", country: "US", tax_exempt: true, tax_rate_pct: 0 });
    expect((await owner.client.get("/api/customer/billing-address")).body).toEqual(res.body);
  });

  it("refuses an unknown Canadian province or a malformed country, naming the field, and keeps the old address", async () => {
    const owner = await createAccount();
    await owner.client.put("/api/customer/billing-address", { country: "CA", province: "ON" });
    const province = await owner.client.put("/api/customer/billing-address", { country: "CA", province: "TX" });
    expectStatus(province, 422);
    expect(issuesOf(province.body)[0]?.loc).toEqual(["body", "province"]);
    const country = await owner.client.put("/api/customer/billing-address", { country: "Canada" });
    expectStatus(country, 422);
    expect(issuesOf(country.body)[0]?.loc).toEqual(["body", "country"]);
    expect((await owner.client.get("/api/customer/billing-address")).body).toMatchObject({ country: "CA", province: "ON" });
  });
});

describe("GET/PUT /api/customer/call-features", () => {
  it("starts with the dialer off and test calls on; the owner switches the dialer on and a token can then be minted", async () => {
    const owner = await createAccount();
    expect((await owner.client.get("/api/customer/call-features")).body).toEqual({ dialer_enabled: false, test_calls_enabled: true });
    expect((await owner.client.post("/api/customer/dialer/session", {})).body).toMatchObject({ detail: "dialer_disabled" });
    const on = await owner.client.put("/api/customer/call-features", { dialer_enabled: true });
    expectStatus(on, 200);
    expect(on.body).toEqual({ dialer_enabled: true, test_calls_enabled: true });
    expect(bodyOf(await owner.client.get("/api/auth/me"), 200).dialer_enabled).toBe(true);
    expect((await owner.client.post("/api/customer/dialer/session", {})).status).toBe(200);
  });

  it("switched off, test calls answer 403 test_calls_disabled", async () => {
    const owner = await createAccount();
    await owner.client.put("/api/customer/call-features", { test_calls_enabled: false });
    const res = await owner.client.post("/api/customer/test-calls", { number: "+15145550100" });
    expectStatus(res, 403);
    expect(res.body).toEqual({ detail: "test_calls_disabled" });
  });

  it("is the owner's: a member gets 403 owner_required, an AI agent connector_forbidden, and nothing changes", async () => {
    const owner = await createAccount();
    const member = await addMember(owner);
    const res = await member.client.put("/api/customer/call-features", { dialer_enabled: true });
    expectStatus(res, 403);
    expect(res.body).toEqual({ detail: "owner_required" });
    const agent = { ...(await principalOf(owner)), via: "connector" as const };
    await expect(putCallFeatures(testServices(), agent, { dialer_enabled: true })).rejects.toMatchObject({ detail: "connector_forbidden" });
    expect(bodyOf(await owner.client.get("/api/customer/call-features"), 200).dialer_enabled).toBe(false);
  });

  it("refuses a switch that is not a boolean, naming the field", async () => {
    const owner = await createAccount();
    const res = await owner.client.put("/api/customer/call-features", { dialer_enabled: "yes" });
    expectStatus(res, 422);
    expect(issuesOf(res.body)[0]?.loc).toContain("dialer_enabled");
  });
});
