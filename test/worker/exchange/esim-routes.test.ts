// The buyer eSIM endpoints through HTTP Digest, as a client sees them: the whole flow, 50
// simultaneous purchases, tenancy, bad input on every endpoint, and the legacy v1 controllers.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { passesLuhn } from "../../../worker/services/exchange/esim/iccid.ts";
import { exchangeSettings } from "../../../worker/services/exchange/settings.ts";
import { exchangeAccount, exchangeClient, legacyRequest, rawRequest, type ExchangeAccount } from "../fixtures/exchange-client.ts";
import { readQr } from "../fixtures/exchange-esim.ts";

type Client = ReturnType<typeof exchangeClient>;

async function sellerWithPackages() {
  const seller = await exchangeAccount("seller");
  const client = exchangeClient(seller);
  const pkg = await client.post("/sellers/esim/packages/publish", {
    name: "France 5 GB",
    countries: "FRANCE",
    data_gb: "5",
    validity_days: "30",
    price: "4.50",
  });
  const topup = await client.post("/sellers/esim/topups/publish", {
    name: "France +1 GB",
    supported_countries: "FRANCE",
    data_GB: "1",
    validity_days: "7",
    price: "2",
  });
  expect([pkg.status, topup.status]).toEqual([200, 200]);
  return { seller, iEsimPackage: pkg.body.package.i_esim_package as number, packageTypeId: topup.body.topup.package_type_id as number };
}

const balanceOf = async (client: Client) => (await client.post("/buyers/balance")).body.balance as number;
const count = async (table: string, iAccount: number) =>
  (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE i_account = ?`).bind(iAccount).first<{ n: number }>())!.n;

describe("the buyer's eSIM flow", () => {
  it("countries → market → purchase → list → orders → top-up list → top-up purchase → balance", async () => {
    const { seller, iEsimPackage, packageTypeId } = await sellerWithPackages();
    const buyer = await exchangeAccount("buyer", 20);
    const client = exchangeClient(buyer);

    const countries = await client.get("/buyers/esim/countries");
    expect(countries.status).toBe(200);
    expect(countries.body.status).toBe("success");
    const names = countries.body.countries.map((c: { name: string }) => c.name);
    expect(names.length).toBeGreaterThan(240);
    expect(names).toEqual([...names].sort());
    expect(names.every((n: string) => n === n.toUpperCase())).toBe(true);
    expect(countries.body.countries).toContainEqual({ name: "FRANCE", iso2: "FR" });

    const market = await client.post("/buyers/esim/market", {
      country: "FRANCE",
      esim_vendor: seller.username,
      data_GB: "5",
      max_price: "5",
    });
    expect(market.body).toMatchObject({ status: "success", total: 1, pager: 20, off: 0 });
    expect(market.body.packages[0]).toMatchObject({
      i_esim_package: iEsimPackage,
      price_with_fee: 4.95,
      validity_days: 30,
      data_gb: 5,
      esim_vendor: seller.username,
    });

    const bought = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const { iccid, lpa, qr_base64, i_esim_order, order_uuid } = bought.body;
    expect(bought.body.status).toBe("success");
    expect(passesLuhn(iccid)).toBe(true);
    expect([19, 20]).toContain(iccid.length);
    expect(lpa).toBe(`LPA:1$${exchangeSettings(env).smDpAddress}$${bought.body.activation_code}`);
    expect(readQr(qr_base64)).toBe(lpa);
    expect(i_esim_order).toBeGreaterThan(0);

    const listed = await client.post("/buyers/esim/list", { iccid, pager: 10, off: 0 });
    expect(listed.body).toMatchObject({ status: "success", total: 1 });
    expect(listed.body.esims[0]).toMatchObject({
      iccid,
      esim_status: "RELEASED",
      lpa,
      package_name: "France 5 GB",
      amount_charged: 4.95,
      days_left_to_expiry: 30,
      data_allowance_bytes: 5 * 1024 ** 3,
    });
    expect(readQr(listed.body.esims[0].qr_base64)).toBe(lpa);

    const topups = await client.post("/buyers/esim/topup/list", { iccid });
    expect(topups.body).toMatchObject({
      status: "success",
      packages: [
        {
          package_type_id: packageTypeId,
          price_with_fee: 2.2,
          data_GB: 1,
          validity_days: 7,
          activation_policy: "immediate",
          supported_countries: ["FRANCE"],
        },
      ],
    });

    const topped = await client.post("/buyers/esim/topup/purchase", { iccid, package_type_id: packageTypeId, i_account: buyer.iAccount });
    expect(topped.body).toMatchObject({ status: "success", data_allowance_bytes: 6 * 1024 ** 3, days_left_to_expiry: 37 });
    expect(topped.body.order_uuid).toMatch(/^[0-9a-f-]{36}$/);

    const now = new Date();
    const fmt = (d: Date) => d.toISOString().slice(0, 19).replace("T", " ");
    const orders = await client.post("/buyers/esim/orders", {
      date_from: fmt(new Date(now.getTime() - 3_600_000)),
      date_to: fmt(new Date(now.getTime() + 3_600_000)),
      pager: 10,
      off: 0,
    });
    expect(orders.body.status).toBe("success");
    expect(orders.body.orders.map((o: any) => [o.order_type, o.order_uuid, o.amount_charged, o.status, o.iccid])).toEqual([
      ["top-up", topped.body.order_uuid, 2.2, "complete", iccid],
      ["purchase", order_uuid, 4.95, "complete", iccid],
    ]);

    expect(await balanceOf(client)).toBe(12.85);
  });

  it("succeeds exactly 10 times out of 50 simultaneous purchases on a balance that covers 10", async () => {
    const { iEsimPackage } = await sellerWithPackages(); // 4.95 each
    const buyer = await exchangeAccount("buyer", "49.57"); // 10 x 4.95 = 49.50
    const client = exchangeClient(buyer);
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage })),
    );
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).toHaveLength(10);
    for (const r of replies.filter((r) => r.status !== 200))
      expect(r).toMatchObject({ status: 402, body: { status: "error", message: "i_account: insufficient balance" } });
    for (const r of ok) {
      expect(passesLuhn(r.body.iccid)).toBe(true);
      expect(readQr(r.body.qr_base64)).toBe(r.body.lpa);
    }
    expect(await balanceOf(client)).toBe(0.07);
    expect(await count("esims", buyer.iAccount)).toBe(10);
    expect(await count("esim_orders", buyer.iAccount)).toBe(10);
  });

  it("hides another account's eSIMs and orders: its ICCID is unknown", async () => {
    const { iEsimPackage, packageTypeId } = await sellerWithPackages();
    const owner = await exchangeAccount("buyer", 20);
    const stranger = await exchangeAccount("buyer", 20);
    const bought = await exchangeClient(owner).post("/buyers/esim/purchase", { i_account: owner.iAccount, i_esim_package: iEsimPackage });
    const iccid = bought.body.iccid;
    const them = exchangeClient(stranger);
    expect((await them.post("/buyers/esim/list", { iccid })).body).toMatchObject({ status: "success", total: 0, esims: [] });
    expect((await them.post("/buyers/esim/orders", {})).body).toMatchObject({ status: "success", total: 0 });
    expect((await them.post("/buyers/esim/topup/list", { iccid })).body).toEqual({ status: "error", message: "iccid: unknown ICCID" });
    expect(
      (await them.post("/buyers/esim/topup/purchase", { iccid, package_type_id: packageTypeId, i_account: stranger.iAccount })).body,
    ).toEqual({ status: "error", message: "iccid: unknown ICCID" });
    // Nor may it charge the owner's account.
    expect((await them.post("/buyers/esim/purchase", { i_account: owner.iAccount, i_esim_package: iEsimPackage })).body).toEqual({
      status: "error",
      message: "i_account: unknown account",
    });
    expect(await balanceOf(them)).toBe(20);
    expect(await balanceOf(exchangeClient(owner))).toBe(15.05);
  });
});

describe("bad input on every endpoint", () => {
  it("answers status error naming the field, stores nothing and charges nothing", async () => {
    const { iEsimPackage, packageTypeId } = await sellerWithPackages();
    const buyer = await exchangeAccount("buyer", 100);
    const client = exchangeClient(buyer);
    const bought = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    const iccid = bought.body.iccid as string;
    const before = {
      balance: await balanceOf(client),
      esims: await count("esims", buyer.iAccount),
      orders: await count("esim_orders", buyer.iAccount),
    };

    const cases: [string, Record<string, string | number>, number, RegExp][] = [
      ["/buyers/esim/market", { country: "NEVERLAND" }, 400, /^country: unknown country/],
      ["/buyers/esim/market", { data_GB: "3" }, 400, /^data_GB: /],
      ["/buyers/esim/market", { max_price: "-1" }, 400, /^max_price: /],
      ["/buyers/esim/market", { i_vendor: "abc" }, 400, /^i_vendor: /],
      ["/buyers/esim/market", { pager: "0" }, 400, /^pager: /],
      ["/buyers/esim/market", { off: "x" }, 400, /^off: /],
      ["/buyers/esim/purchase", { i_esim_package: iEsimPackage }, 400, /^i_account: required/],
      ["/buyers/esim/purchase", { i_account: buyer.iAccount }, 400, /^i_esim_package: required/],
      ["/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: "one" }, 400, /^i_esim_package: /],
      ["/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: 987_654_321 }, 404, /^i_esim_package: unknown package/],
      ["/buyers/esim/purchase", { i_account: buyer.iAccount + 100_000, i_esim_package: iEsimPackage }, 404, /^i_account: unknown account/],
      ["/buyers/esim/list", { iccid: "89abc" }, 400, /^iccid: /],
      ["/buyers/esim/list", { pager: "1000" }, 400, /^pager: /],
      ["/buyers/esim/orders", { date_from: "2026-01-01T00:00:00Z" }, 400, /^date_from: /],
      ["/buyers/esim/orders", { date_to: "2026-02-30 00:00:00" }, 400, /^date_to: /],
      [
        "/buyers/esim/orders",
        { date_from: "2026-02-01 00:00:00", date_to: "2026-01-01 00:00:00" },
        400,
        /^date_to: must not be before date_from/,
      ],
      ["/buyers/esim/topup/list", {}, 400, /^iccid: required/],
      ["/buyers/esim/topup/list", { iccid: "1234567890123456789012345" }, 400, /^iccid: /],
      ["/buyers/esim/topup/list", { iccid: "8944990000000000000" }, 404, /^iccid: unknown ICCID/],
      ["/buyers/esim/topup/purchase", { package_type_id: packageTypeId, i_account: buyer.iAccount }, 400, /^iccid: required/],
      ["/buyers/esim/topup/purchase", { iccid, i_account: buyer.iAccount }, 400, /^package_type_id: required/],
      ["/buyers/esim/topup/purchase", { iccid, package_type_id: packageTypeId }, 400, /^i_account: required/],
      [
        "/buyers/esim/topup/purchase",
        { iccid, package_type_id: 987_654_321, i_account: buyer.iAccount },
        404,
        /^package_type_id: unknown top-up package/,
      ],
      ["/buyers/iothistory", {}, 400, /^date_from: required/],
      ["/buyers/iot/devices", { iccid }, 400, /^device: required/],
    ];
    for (const [path, form, status, message] of cases) {
      const res = await client.post(path, form);
      expect({ path, status: res.status, body: res.body }).toMatchObject({ path, status, body: { status: "error", message } });
    }
    expect({
      balance: await balanceOf(client),
      esims: await count("esims", buyer.iAccount),
      orders: await count("esim_orders", buyer.iAccount),
    }).toEqual(before);
  });

  it("refuses a wrong key with a Digest challenge, and a seller key on buyer endpoints", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const wrong = await exchangeClient(buyer, { key: "xb_wrong" }).post("/buyers/esim/market", {});
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Digest /);
    const seller: ExchangeAccount = await exchangeAccount("seller");
    expect((await exchangeClient(seller).post("/buyers/esim/market", {})).status).toBe(401);
    expect((await rawRequest("POST", "/exchange/buyers/esim/purchase", { i_account: 1, i_esim_package: 1 })).status).toBe(401);
  });
});

describe("legacy v1", () => {
  it("serves the eSIM calls as controllers with the signature", async () => {
    const { iEsimPackage } = await sellerWithPackages();
    const buyer = await exchangeAccount("buyer", 10);
    const market = await legacyRequest(buyer, "esim_market", { country: "FRANCE", pager: 100 });
    expect(market.body.status).toBe("success");
    expect(market.body.packages.map((p: any) => p.i_esim_package)).toContain(iEsimPackage);
    const bought = await legacyRequest(buyer, "esim_purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(bought.body).toMatchObject({ status: "success" });
    expect(readQr(bought.body.qr_base64)).toBe(bought.body.lpa);
    const listed = await legacyRequest(buyer, "esim_list", { iccid: bought.body.iccid });
    expect(listed.body.esims).toHaveLength(1);
    expect((await legacyRequest(buyer, "esim_countries", {})).body.countries.length).toBeGreaterThan(240);
    expect((await legacyRequest(buyer, "esim_purchase", { i_account: buyer.iAccount, i_esim_package: "x" })).body).toEqual({
      status: "error",
      message: "i_esim_package: must be an integer",
    });
  });
});
