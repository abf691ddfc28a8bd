// eSIM services: issuing (ICCID with a Luhn check digit, LPA, QR code), purchase through the
// AccountLedger (atomic under contention, nothing stored when refused), inventory, orders,
// market search and top-ups.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { luhnCheckDigit, newIccid, newMatchingId, passesLuhn } from "../../../worker/services/exchange/esim/iccid.ts";
import { listEsims } from "../../../worker/services/exchange/esim/inventory.ts";
import { searchMarket } from "../../../worker/services/exchange/esim/market.ts";
import { listOrders } from "../../../worker/services/exchange/esim/orders.ts";
import { purchaseEsim } from "../../../worker/services/exchange/esim/purchase.ts";
import { InventoryList, MarketSearch, OrdersList } from "../../../worker/services/exchange/esim/schemas.ts";
import { exchangeSettings } from "../../../worker/services/exchange/settings.ts";
import { listTopups, purchaseTopup } from "../../../worker/services/exchange/esim/topups.ts";
import { parseFields } from "../../../worker/exchange/respond.ts";
import { withdrawPackage } from "../../../worker/services/exchange/sellers/packages.ts";
import {
  account,
  balanceMicros,
  deps,
  exchangeFailure,
  expectFailure,
  publish,
  publishTopupPackage,
  readQr,
  rows,
} from "../fixtures/exchange-esim.ts";

const GB = 1024 ** 3;
const list = (iAccount: number, fields: Record<string, unknown> = {}) => listEsims(deps(), iAccount, parseFields(InventoryList, fields));
const orders = (iAccount: number, fields: Record<string, unknown> = {}) => listOrders(deps(), iAccount, parseFields(OrdersList, fields));
const market = (fields: Record<string, unknown>) => searchMarket(deps(), parseFields(MarketSearch, fields));

describe("identifiers", () => {
  it("computes Luhn check digits", () => {
    expect(luhnCheckDigit("7992739871")).toBe(3);
    expect(passesLuhn("79927398713")).toBe(true);
    expect(passesLuhn("79927398710")).toBe(false);
    // An ICCID as printed on a SIM: 89 (telecom) 44 (UK) ... with its check digit.
    expect(passesLuhn("8944110068256270054")).toBe(true);
  });

  it("issues ICCIDs of 19 or 20 digits under the issuer prefix, each passing the Luhn check", () => {
    const prefix = exchangeSettings(env).issuerPrefix;
    expect(prefix).toMatch(/^89\d{2,8}$/);
    for (const length of [19, 20] as const) {
      const seen = new Set<string>();
      for (let i = 0; i < 500; i++) {
        const iccid = newIccid(prefix, length);
        expect(iccid).toMatch(new RegExp(`^${prefix}\\d+$`));
        expect(iccid).toHaveLength(length);
        expect(passesLuhn(iccid), iccid).toBe(true);
        seen.add(iccid);
      }
      expect(seen.size).toBe(500);
    }
  });

  it("draws matching ids of uppercase letters and digits", () => {
    const ids = Array.from({ length: 200 }, newMatchingId);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){3}$/);
    expect(new Set(ids).size).toBe(200);
  });
});

describe("purchase", () => {
  it("debits price_with_fee and issues an eSIM whose QR code holds its LPA string", async () => {
    const seller = await account("seller");
    const pkg = await publish(seller, { price: "10", countries: ["FRANCE", "SPAIN"], data_gb: 5, validity_days: 30 });
    expect(pkg).toMatchObject({ price: 10, fee: 1, price_with_fee: 11 });
    const buyer = await account("buyer", 100);

    const esim = await purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package });

    const { smDpAddress, issuerPrefix } = exchangeSettings(env);
    expect(esim.iccid.startsWith(issuerPrefix)).toBe(true);
    expect([19, 20]).toContain(esim.iccid.length);
    expect(passesLuhn(esim.iccid)).toBe(true);
    expect(esim.lpa).toBe(`LPA:1$${smDpAddress}$${esim.activation_code}`);
    expect(esim.sm_dp_address).toBe(smDpAddress);
    expect(esim.order_uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(esim.i_esim_order).toBeGreaterThan(0);
    expect(readQr(esim.qr_base64)).toBe(esim.lpa);
    expect(esim).toMatchObject({ amount_charged: 11, esim_status: "RELEASED", package_name: pkg.name });
    expect(await balanceMicros(buyer.iAccount)).toBe(89_000_000);

    const { esims } = await list(buyer.iAccount);
    expect(esims).toHaveLength(1);
    expect(esims[0]).toMatchObject({
      iccid: esim.iccid,
      esim_status: "RELEASED",
      data_allowance_bytes: 5 * GB,
      data_usage_remaining_bytes: 5 * GB,
      data_used_bytes: 0,
      days_left_to_expiry: 30,
      lpa: esim.lpa,
      sm_dp_address: smDpAddress,
      activation_code: esim.activation_code,
      package_name: pkg.name,
      amount_charged: 11,
      countries: ["FRANCE", "SPAIN"],
      i_esim_order: esim.i_esim_order,
      order_uuid: esim.order_uuid,
    });
    expect(esims[0]!.esim_status_message).toMatch(/ready to install/i);
    expect(readQr(esims[0]!.qr_base64)).toBe(esim.lpa);
  });

  it("succeeds exactly 10 times out of 50 simultaneous purchases when the balance covers 10, to the cent", async () => {
    const seller = await account("seller");
    const pkg = await publish(seller, { price: "1.23" }); // 1.23 + 0.123 fee = 1.353
    const buyer = await account("buyer", "13.58"); // 10 x 1.353 = 13.53, 0.05 left
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, () => purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package })),
    );
    const issued = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    const refused = attempts.flatMap((a) => (a.status === "rejected" ? [exchangeFailure(a.reason)!] : []));
    expect(issued).toHaveLength(10);
    expect(refused.map((r) => [r.status, r.message])).toEqual(Array.from({ length: 40 }, () => [402, "i_account: insufficient balance"]));
    expect(await balanceMicros(buyer.iAccount)).toBe(50_000);
    expect(new Set(issued.map((e) => e.iccid)).size).toBe(10);
    for (const e of issued) expect(passesLuhn(e.iccid)).toBe(true);
    expect(await rows("esims", buyer.iAccount)).toBe(10);
    expect(await rows("esim_orders", buyer.iAccount)).toBe(10);
  });

  it("stores and charges nothing when the balance does not cover the price", async () => {
    const seller = await account("seller");
    const pkg = await publish(seller, { price: "10" });
    const buyer = await account("buyer", "10.99");
    await expectFailure(purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package }), 402, "i_account");
    expect(await balanceMicros(buyer.iAccount)).toBe(10_990_000);
    expect(await rows("esims", buyer.iAccount)).toBe(0);
    expect(await rows("esim_orders", buyer.iAccount)).toBe(0);
  });

  it("refuses an unknown or withdrawn package, and another account's i_account, naming the field", async () => {
    const seller = await account("seller");
    const pkg = await publish(seller);
    const buyer = await account("buyer", 100);
    const other = await account("buyer", 100);
    await expectFailure(purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: 999_999_999 }), 404, "i_esim_package");
    await expectFailure(purchaseEsim(deps(), buyer, { i_account: other.iAccount, i_esim_package: pkg.i_esim_package }), 404, "i_account");
    await withdrawPackage(deps(), seller, pkg.i_esim_package);
    await expectFailure(
      purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package }),
      404,
      "i_esim_package",
    );
    expect(await balanceMicros(buyer.iAccount)).toBe(100_000_000);
    expect(await balanceMicros(other.iAccount)).toBe(100_000_000);
    expect(await rows("esim_orders", buyer.iAccount)).toBe(0);
  });
});

describe("inventory", () => {
  it("filters by exact ICCID, pages with pager and off, and never shows another account's eSIM", async () => {
    const seller = await account("seller");
    const pkg = await publish(seller, { price: "1", data_gb: -1 });
    const buyer = await account("buyer", 100);
    const other = await account("buyer", 100);
    const bought = [];
    for (let i = 0; i < 3; i++)
      bought.push(await purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package }));
    const theirs = await purchaseEsim(deps(), other, { i_account: other.iAccount, i_esim_package: pkg.i_esim_package });

    const all = await list(buyer.iAccount);
    expect(all.total).toBe(3);
    expect(all.esims.map((e) => e.iccid).sort()).toEqual(bought.map((e) => e.iccid).sort());
    expect(all.esims[0]).toMatchObject({ data_allowance_bytes: -1, data_usage_remaining_bytes: -1 });

    const first = await list(buyer.iAccount, { pager: "2", off: "0" });
    const second = await list(buyer.iAccount, { pager: "2", off: "2" });
    expect(first.esims).toHaveLength(2);
    expect(second.esims).toHaveLength(1);
    expect(new Set([...first.esims, ...second.esims].map((e) => e.iccid)).size).toBe(3);

    const one = await list(buyer.iAccount, { iccid: bought[1]!.iccid });
    expect(one.esims.map((e) => e.iccid)).toEqual([bought[1]!.iccid]);
    expect((await list(buyer.iAccount, { iccid: theirs.iccid })).esims).toEqual([]);
    await expectFailure(listTopups(deps(), buyer.iAccount, { iccid: theirs.iccid }), 404, "iccid", /unknown ICCID/);
  });

  it("validates the list fields, naming them", () => {
    expect(() => parseFields(InventoryList, { iccid: "12345" })).toThrow(/^iccid: /);
    expect(() => parseFields(InventoryList, { pager: "0" })).toThrow(/^pager: /);
    expect(() => parseFields(InventoryList, { pager: "101" })).toThrow(/^pager: /);
    expect(() => parseFields(InventoryList, { off: "-1" })).toThrow(/^off: /);
  });
});

describe("orders", () => {
  it("lists purchases and top-ups between date_from and date_to, newest first", async () => {
    const seller = await account("seller");
    const pkg = await publish(seller, { price: "2" });
    const topup = await publishTopupPackage(seller, { price: "1" });
    const buyer = await account("buyer", 100);
    const esim = await purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package });
    const t = await purchaseTopup(deps(), buyer, { i_account: buyer.iAccount, iccid: esim.iccid, package_type_id: topup.package_type_id });

    const all = await orders(buyer.iAccount);
    expect(all.orders.map((o) => o.order_type)).toEqual(["top-up", "purchase"]);
    expect(all.orders[0]).toMatchObject({
      order_uuid: t.order_uuid,
      amount_charged: 1.1,
      status: "complete",
      iccid: esim.iccid,
      package_name: topup.name,
    });
    expect(all.orders[1]).toMatchObject({
      i_esim_order: esim.i_esim_order,
      order_uuid: esim.order_uuid,
      amount_charged: 2.2,
      status: "complete",
      package_name: pkg.name,
    });
    expect(all.orders[1]!.create_ts).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    const ts = all.orders[1]!.create_ts;
    expect((await orders(buyer.iAccount, { date_from: ts, date_to: ts })).orders.map((o) => o.order_uuid)).toContain(esim.order_uuid);
    expect((await orders(buyer.iAccount, { date_from: "2000-01-01 00:00:00", date_to: "2000-12-31 23:59:59" })).total).toBe(0);
    expect((await orders(buyer.iAccount, { pager: "1", off: "1" })).orders.map((o) => o.order_type)).toEqual(["purchase"]);
  });

  it("refuses malformed or reversed dates, naming the field", async () => {
    expect(() => parseFields(OrdersList, { date_from: "2026-13-01 00:00:00" })).toThrow(/^date_from: /);
    expect(() => parseFields(OrdersList, { date_to: "yesterday" })).toThrow(/^date_to: /);
    const buyer = await account("buyer");
    await expectFailure(orders(buyer.iAccount, { date_from: "2026-02-01 00:00:00", date_to: "2026-01-01 00:00:00" }), 400, "date_to");
  });
});

describe("market", () => {
  it("filters by country, vendor login or id, max_price and data_GB, cheapest first, paged", async () => {
    const seller = await account("seller");
    const a = await publish(seller, { price: "3", countries: ["JAPAN"], data_gb: 1 });
    const b = await publish(seller, { price: "1", countries: ["JAPAN", "SOUTH KOREA"], data_gb: 0.5 });
    const c = await publish(seller, { price: "20", countries: ["JAPAN"], data_gb: -1 });
    await publish(seller, { price: "2", countries: ["FRANCE"], data_gb: 1 });
    const mine = { i_vendor: String(seller.iAccount) };

    const japan = await market({ ...mine, country: "JAPAN" });
    expect(japan.packages.map((p) => p.i_esim_package)).toEqual([b.i_esim_package, a.i_esim_package, c.i_esim_package]);
    expect(japan.packages[0]).toMatchObject({
      price_with_fee: 1.1,
      data_gb: 0.5,
      validity_days: 30,
      esim_vendor: seller.username,
      i_vendor: seller.iAccount,
    });
    expect((await market({ esim_vendor: seller.username, country: "japan" })).total).toBe(3);
    expect((await market({ ...mine, country: "SOUTH KOREA" })).packages.map((p) => p.i_esim_package)).toEqual([b.i_esim_package]);
    expect((await market({ ...mine, max_price: "3.30" })).packages.map((p) => p.price_with_fee)).toEqual([1.1, 2.2, 3.3]);
    expect((await market({ ...mine, data_GB: "-1" })).packages.map((p) => p.i_esim_package)).toEqual([c.i_esim_package]);
    expect((await market({ ...mine, data_GB: "1" })).total).toBe(2);
    const page = await market({ ...mine, pager: "2", off: "2" });
    expect(page).toMatchObject({ total: 4, pager: 2, off: 2 });
    expect(page.packages).toHaveLength(2);
    expect((await market(mine)).pager).toBe(20);
  });

  it("hides the packages of a suspended seller, and refuses their purchase", async () => {
    const seller = await account("seller");
    const pkg = await publish(seller);
    const buyer = await account("buyer", 100);
    expect((await market({ i_vendor: String(seller.iAccount) })).total).toBe(1);
    await env.DB.prepare("UPDATE exchange_accounts SET status = 'suspended' WHERE i_account = ?").bind(seller.iAccount).run();
    expect((await market({ i_vendor: String(seller.iAccount) })).total).toBe(0);
    await expectFailure(
      purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package }),
      404,
      "i_esim_package",
    );
  });

  it("names the field of every bad filter", async () => {
    await expectFailure(market({ country: "ATLANTIS" }), 400, "country", /countries/);
    expect(() => parseFields(MarketSearch, { data_GB: "2" })).toThrow(/^data_GB: must be one of 0.5, 1, 5, 10, 20 or -1/);
    expect(() => parseFields(MarketSearch, { max_price: "cheap" })).toThrow(/^max_price: /);
    expect(() => parseFields(MarketSearch, { i_vendor: "x" })).toThrow(/^i_vendor: /);
    expect(() => parseFields(MarketSearch, { pager: "1000" })).toThrow(/^pager: /);
    expect(() => parseFields(MarketSearch, { off: "-5" })).toThrow(/^off: /);
  });
});

describe("top-ups", () => {
  async function setup(packageOverrides = {}) {
    const seller = await account("seller");
    const pkg = await publish(seller, { price: "5", countries: ["FRANCE", "ITALY"], data_gb: 1, validity_days: 10, ...packageOverrides });
    const buyer = await account("buyer", 100);
    const esim = await purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package });
    return { seller, buyer, esim };
  }
  const only = async (iAccount: number, iccid: string) => (await list(iAccount, { iccid })).esims[0]!;

  it("lists the seller's top-ups whose supported countries cover the eSIM's, cheapest first", async () => {
    const { seller, buyer, esim } = await setup();
    const wide = await publishTopupPackage(seller, { supported_countries: ["FRANCE", "ITALY", "SPAIN"], price: "4" });
    const exact = await publishTopupPackage(seller, { supported_countries: ["ITALY", "FRANCE"], price: "2" });
    await publishTopupPackage(seller, { supported_countries: ["FRANCE"], price: "1" }); // misses ITALY
    const otherSeller = await account("seller");
    await publishTopupPackage(otherSeller, { supported_countries: ["FRANCE", "ITALY"], price: "1" }); // another vendor's
    const { packages } = await listTopups(deps(), buyer.iAccount, { iccid: esim.iccid });
    expect(packages.map((p) => p.package_type_id)).toEqual([exact.package_type_id, wide.package_type_id]);
    expect(packages[0]).toEqual({
      package_type_id: exact.package_type_id,
      name: exact.name,
      price_with_fee: 2.2,
      data_GB: 1,
      validity_days: 7,
      activation_policy: "immediate",
      supported_countries: ["ITALY", "FRANCE"],
    });
  });

  it("applies an immediate top-up at once: allowance and validity extended, charged price_with_fee", async () => {
    const { seller, buyer, esim } = await setup();
    const topup = await publishTopupPackage(seller, { supported_countries: ["FRANCE", "ITALY"], data_GB: 5, validity_days: 7, price: "3" });
    const before = await balanceMicros(buyer.iAccount);
    const result = await purchaseTopup(deps(), buyer, {
      i_account: buyer.iAccount,
      iccid: esim.iccid,
      package_type_id: topup.package_type_id,
    });
    expect(result.order_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(result).toMatchObject({ amount_charged: 3.3, data_allowance_bytes: 6 * GB, days_left_to_expiry: 17 });
    expect(await balanceMicros(buyer.iAccount)).toBe(before - 3_300_000);
    expect(await only(buyer.iAccount, esim.iccid)).toMatchObject({
      data_allowance_bytes: 6 * GB,
      days_left_to_expiry: 17,
      pending_validity_days: 0,
    });
  });

  it("keeps on_first_use validity pending until the eSIM is enabled, the data at once", async () => {
    const { seller, buyer, esim } = await setup();
    const topup = await publishTopupPackage(seller, {
      supported_countries: ["FRANCE", "ITALY"],
      data_GB: 1,
      validity_days: 5,
      activation_policy: "on_first_use",
    });
    await purchaseTopup(deps(), buyer, { i_account: buyer.iAccount, iccid: esim.iccid, package_type_id: topup.package_type_id });
    expect(await only(buyer.iAccount, esim.iccid)).toMatchObject({
      data_allowance_bytes: 2 * GB,
      days_left_to_expiry: 10,
      pending_validity_days: 5,
    });
  });

  it("makes a limited eSIM unlimited with an unlimited top-up", async () => {
    const { seller, buyer, esim } = await setup();
    const topup = await publishTopupPackage(seller, { supported_countries: ["FRANCE", "ITALY"], data_GB: -1 });
    await purchaseTopup(deps(), buyer, { i_account: buyer.iAccount, iccid: esim.iccid, package_type_id: topup.package_type_id });
    expect(await only(buyer.iAccount, esim.iccid)).toMatchObject({ data_allowance_bytes: -1, data_usage_remaining_bytes: -1 });
  });

  it("refuses incompatible or unknown packages, other accounts' eSIMs and short balances, charging nothing", async () => {
    const { seller, buyer, esim } = await setup();
    const narrow = await publishTopupPackage(seller, { supported_countries: ["FRANCE"] });
    const fits = await publishTopupPackage(seller, { supported_countries: ["FRANCE", "ITALY"], price: "500" });
    const stranger = await account("buyer", 1000);
    const before = await balanceMicros(buyer.iAccount);
    const topup = (who: typeof buyer, fields: { iccid?: string; package_type_id?: number }) =>
      purchaseTopup(deps(), who, { i_account: who.iAccount, iccid: esim.iccid, package_type_id: fits.package_type_id, ...fields });
    await expectFailure(topup(buyer, { package_type_id: narrow.package_type_id }), 400, "package_type_id", /not a top-up for this eSIM/);
    await expectFailure(topup(buyer, { package_type_id: 999_999_999 }), 404, "package_type_id");
    await expectFailure(topup(stranger, {}), 404, "iccid", /unknown ICCID/);
    await expectFailure(topup(buyer, {}), 402, "i_account");
    await expectFailure(
      purchaseTopup(deps(), buyer, { i_account: stranger.iAccount, iccid: esim.iccid, package_type_id: fits.package_type_id }),
      404,
      "i_account",
    );
    expect(await balanceMicros(buyer.iAccount)).toBe(before);
    expect(await balanceMicros(stranger.iAccount)).toBe(1_000_000_000);
    expect(await rows("esim_orders", buyer.iAccount)).toBe(1);
    expect(await only(buyer.iAccount, esim.iccid)).toMatchObject({ data_allowance_bytes: GB, days_left_to_expiry: 10 });
  });
});
