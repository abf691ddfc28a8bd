// Sellers publish the market (eSIM packages, top-ups, voice and SMS rates, each priced with the
// platform fee), and /marketview/search shows the rates as JSON or as a CSV rate deck.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { exchangeSettings } from "../../../worker/services/exchange/settings.ts";
import { exchangeAccount, exchangeClient } from "../fixtures/exchange-client.ts";

const feePercent = () => exchangeSettings(env).feeBasisPoints / 100;

async function seller() {
  const account = await exchangeAccount("seller");
  return { account, client: exchangeClient(account) };
}

const rowCount = async (sql: string, ...params: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...params)
    .first<{ n: number }>())!.n;

describe("sellers: eSIM packages", () => {
  it("publishes, updates and withdraws a package; the market follows", async () => {
    expect(feePercent()).toBe(10);
    const { account, client } = await seller();
    const published = await client.post("/sellers/esim/packages/publish", {
      name: "Europe 5 GB",
      countries: "FRANCE, germany,ITALY",
      data_gb: "5",
      validity_days: "30",
      price: "8.50",
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body).toMatchObject({
      status: "success",
      package: {
        name: "Europe 5 GB",
        countries: ["FRANCE", "GERMANY", "ITALY"],
        data_gb: 5,
        validity_days: 30,
        kind: "universal",
        price: 8.5,
        fee: 0.85,
        price_with_fee: 9.35,
        active: true,
      },
    });
    const id = published.body.package.i_esim_package;

    const buyer = exchangeClient(await exchangeAccount("buyer", 0));
    const search = () => buyer.post("/buyers/esim/market", { i_vendor: account.iAccount, country: "GERMANY" });
    expect((await search()).body.packages).toEqual([
      {
        i_esim_package: id,
        name: "Europe 5 GB",
        countries: ["FRANCE", "GERMANY", "ITALY"],
        data_gb: 5,
        validity_days: 30,
        kind: "universal",
        price_with_fee: 9.35,
        i_vendor: account.iAccount,
        esim_vendor: account.username,
        vendor_name: account.username,
      },
    ]);

    const updated = await client.post("/sellers/esim/packages/update", { i_esim_package: id, price: "10", countries: "FRANCE,ITALY" });
    expect(updated.body.package).toMatchObject({ price: 10, fee: 1, price_with_fee: 11, countries: ["FRANCE", "ITALY"] });
    expect((await search()).body.packages).toEqual([]);

    const withdrawn = await client.post("/sellers/esim/packages/withdraw", { i_esim_package: id });
    expect(withdrawn.body.package.active).toBe(false);
    expect((await buyer.post("/buyers/esim/market", { i_vendor: account.iAccount })).body.total).toBe(0);
    const listed = await client.post("/sellers/esim/packages/list", {});
    expect(listed.body).toMatchObject({ total: 1, packages: [{ i_esim_package: id, active: false }] });
  });

  it("names the field of every bad value and stores nothing", async () => {
    const { account, client } = await seller();
    const good = { name: "P", countries: "FRANCE", data_gb: "1", validity_days: "7", price: "1" };
    const cases: [Record<string, string>, RegExp][] = [
      [{ ...good, name: "" }, /^name: required/],
      [{ ...good, countries: "FRANCE,NARNIA" }, /^countries: unknown country "NARNIA"/],
      [{ ...good, countries: "" }, /^countries: required/],
      [{ ...good, data_gb: "0" }, /^data_gb: /],
      [{ ...good, data_gb: "-2" }, /^data_gb: /],
      [{ ...good, validity_days: "0" }, /^validity_days: /],
      [{ ...good, validity_days: "1.5" }, /^validity_days: /],
      [{ ...good, price: "-1" }, /^price: /],
      [{ ...good, price: "0" }, /^price: must be more than 0/],
      [{ ...good, price: "1.1234567" }, /^price: /],
      [{ ...good, kind: "global" }, /^kind: /],
    ];
    for (const [form, message] of cases) {
      const res = await client.post("/sellers/esim/packages/publish", form);
      expect({ status: res.status, body: res.body }, JSON.stringify(form)).toMatchObject({
        status: 400,
        body: { status: "error", message },
      });
    }
    expect(await rowCount("SELECT COUNT(*) AS n FROM esim_packages WHERE i_vendor = ?", account.iAccount)).toBe(0);
    expect((await client.post("/sellers/esim/packages/update", { i_esim_package: 999_999 })).body).toEqual({
      status: "error",
      message: "i_esim_package: unknown package",
    });
  });

  it("keeps a seller away from another seller's packages, and buyer keys away from seller endpoints", async () => {
    const first = await seller();
    const second = await seller();
    const pkg = await first.client.post("/sellers/esim/packages/publish", {
      name: "P",
      countries: "FRANCE",
      data_gb: "1",
      validity_days: "7",
      price: "1",
    });
    const id = pkg.body.package.i_esim_package;
    expect((await second.client.post("/sellers/esim/packages/withdraw", { i_esim_package: id })).body).toEqual({
      status: "error",
      message: "i_esim_package: unknown package",
    });
    const buyer = await exchangeAccount("buyer", 0);
    const asBuyer = await exchangeClient(buyer).post("/sellers/esim/packages/publish", {
      name: "P",
      countries: "FRANCE",
      data_gb: "1",
      validity_days: "7",
      price: "1",
    });
    expect(asBuyer.status).toBe(401);
  });
});

describe("sellers: top-ups", () => {
  it("publishes with data_GB and activation_policy, updates and withdraws", async () => {
    const { client } = await seller();
    const res = await client.post("/sellers/esim/topups/publish", {
      name: "Top 1",
      supported_countries: "FRANCE,SPAIN",
      data_GB: "1",
      validity_days: "7",
      activation_policy: "on_first_use",
      price: "2",
    });
    expect(res.body).toMatchObject({
      status: "success",
      topup: {
        data_GB: 1,
        validity_days: 7,
        activation_policy: "on_first_use",
        supported_countries: ["FRANCE", "SPAIN"],
        price_with_fee: 2.2,
      },
    });
    const id = res.body.topup.package_type_id;
    expect(
      (await client.post("/sellers/esim/topups/update", { package_type_id: id, activation_policy: "immediate", data_GB: "-1" })).body.topup,
    ).toMatchObject({ activation_policy: "immediate", data_GB: -1 });
    expect((await client.post("/sellers/esim/topups/withdraw", { package_type_id: id })).body.topup.active).toBe(false);
    expect(
      (
        await client.post("/sellers/esim/topups/publish", {
          name: "T",
          supported_countries: "FRANCE",
          data_GB: "1",
          validity_days: "7",
          activation_policy: "later",
          price: "2",
        })
      ).body.message,
    ).toMatch(/^activation_policy: /);
    expect((await client.post("/sellers/esim/topups/list", {})).body).toMatchObject({ total: 1 });
  });
});

describe("sellers: voice and SMS rates, and the market view", () => {
  async function deck() {
    const a = await seller();
    const b = await seller();
    const publish = (s: { client: ReturnType<typeof exchangeClient> }, form: Record<string, string>) =>
      s.client.post("/sellers/rates/publish", form);
    const r1 = await publish(a, { service: "voice", country: "UNITED KINGDOM", prefix: "+44", price: "0.0100", description: "UK fixed" });
    expect(r1.body).toMatchObject({
      status: "success",
      rate: { service: "voice", unit: "minute", country: "UNITED KINGDOM", prefix: "44", price: 0.01, fee: 0.001, price_with_fee: 0.011 },
    });
    await publish(a, {
      service: "voice",
      country: "UNITED KINGDOM",
      prefix: "447",
      price: "0.02",
      description: 'UK mobile, "all networks"',
    });
    await publish(b, { service: "voice", country: "UNITED KINGDOM", prefix: "447", price: "0.015" });
    await publish(b, { service: "sms", country: "FRANCE", prefix: "336", price: "0.03" });
    return { a, b, r1 };
  }

  it("publishes (again replaces the price), updates and withdraws rates", async () => {
    const { a, r1 } = await deck();
    const again = await a.client.post("/sellers/rates/publish", {
      service: "voice",
      country: "UNITED KINGDOM",
      prefix: "44",
      price: "0.009",
    });
    expect(again.body.rate).toMatchObject({ i_rate: r1.body.rate.i_rate, price: 0.009 });
    const updated = await a.client.post("/sellers/rates/update", {
      i_rate: r1.body.rate.i_rate,
      price: "0.012",
      description: "UK geographic",
    });
    expect(updated.body.rate).toMatchObject({ price: 0.012, price_with_fee: 0.0132, description: "UK geographic" });
    expect((await a.client.post("/sellers/rates/withdraw", { i_rate: r1.body.rate.i_rate })).body.rate.active).toBe(false);
    expect((await a.client.post("/sellers/rates/list", {})).body.total).toBe(2);
    for (const [form, message] of [
      [{ service: "fax", country: "FRANCE", prefix: "33", price: "1" }, /^service: /],
      [{ service: "sms", country: "GAUL", prefix: "33", price: "1" }, /^country: unknown country/],
      [{ service: "sms", country: "FRANCE", prefix: "33a", price: "1" }, /^prefix: /],
      [{ service: "sms", country: "FRANCE", prefix: "33", price: "101" }, /^price: must be at most 100/],
    ] as const) {
      expect((await a.client.post("/sellers/rates/publish", form)).body).toMatchObject({ status: "error", message });
    }
  });

  it("searches by service, country, prefix, price and vendor; pages; either key may ask", async () => {
    const { a, b } = await deck();
    const buyer = exchangeClient(await exchangeAccount("buyer", 0));
    const search = async (form: Record<string, string | number>) => {
      const res = await buyer.post("/marketview/search", form);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const both = `${a.account.iAccount}`;
    const mine = (body: any) => body.rates.filter((r: any) => [a.account.iAccount, b.account.iAccount].includes(r.i_vendor));

    const uk = mine(await search({ service: "voice", country: "UNITED KINGDOM", pager: 1000 }));
    expect(uk.map((r: any) => [r.prefix, r.price_with_fee, r.vendor])).toEqual([
      ["44", 0.011, a.account.username],
      ["447", 0.0165, b.account.username],
      ["447", 0.022, a.account.username],
    ]);
    expect(mine(await search({ prefix: "447", pager: 1000 })).map((r: any) => r.price_with_fee)).toEqual([0.0165, 0.022]);
    expect(
      mine(await search({ service: "voice", max_price: "0.02", country: "UNITED KINGDOM", pager: 1000 })).map((r: any) => r.prefix),
    ).toEqual(["44", "447"]);
    expect((await search({ i_vendor: both })).rates.map((r: any) => r.prefix)).toEqual(["44", "447"]);
    expect((await search({ vendor: b.account.username, service: "sms" })).rates).toEqual([
      expect.objectContaining({
        service: "sms",
        unit: "message",
        country: "FRANCE",
        prefix: "336",
        price_with_fee: 0.033,
        currency: "USD",
      }),
    ]);
    const page = await search({ i_vendor: both, pager: 1, off: 1 });
    expect(page).toMatchObject({ total: 2, pager: 1, off: 1, rates: [{ prefix: "447" }] });
    const asSeller = await a.client.post("/marketview/search", { i_vendor: both });
    expect(asSeller.body.total).toBe(2);
  });

  it("downloads the rate deck as CSV with format=csv", async () => {
    const { a } = await deck();
    const buyer = exchangeClient(await exchangeAccount("buyer", 0));
    const res = await buyer.post("/marketview/search", { format: "csv", i_vendor: a.account.iAccount });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="rate-deck-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (res.body as string).trimEnd().split("\r\n");
    expect(lines[0]).toBe("service,country,prefix,description,price_with_fee,currency,unit,i_vendor,vendor,updated_at");
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 3).join(","))).toEqual(["voice,UNITED KINGDOM,44", "voice,UNITED KINGDOM,447"]);
    expect(lines[2]).toContain('"UK mobile, ""all networks"""');
    expect(lines[2]).toContain(`,0.022,USD,minute,${a.account.iAccount},${a.account.username},`);
  });

  it("answers bad search fields as JSON errors naming the field, even for format=csv", async () => {
    const buyer = exchangeClient(await exchangeAccount("buyer", 0));
    for (const [form, message] of [
      [{ service: "mms" }, /^service: /],
      [{ country: "MORDOR" }, /^country: unknown country/],
      [{ prefix: "+x" }, /^prefix: /],
      [{ max_price: "free" }, /^max_price: /],
      [{ pager: "5000" }, /^pager: /],
      [{ format: "xml" }, /^format: /],
      [{ format: "csv", country: "MORDOR" }, /^country: /],
    ] as const) {
      const res = await buyer.post("/marketview/search", form);
      expect({ status: res.status, body: res.body }).toMatchObject({ status: 400, body: { status: "error", message } });
    }
  });
});
