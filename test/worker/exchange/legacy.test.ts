// Legacy v1: the per-request signature (controller + api_key + api_login + ts), webapi=1, the
// freshness window, and the lookup and balance controllers.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callingCodeOf } from "../../../worker/services/exchange/lookup.ts";
import { exchangeAccount, LEGACY_PREFIX, legacyRequest, legacySignature, ORIGIN, rawRequest } from "../fixtures/exchange-client.ts";

const now = () => Math.floor(Date.now() / 1000);

describe("legacy signature", () => {
  it("answers balance with a good signature, as v2 does", async () => {
    const buyer = await exchangeAccount("buyer", 42.25);
    const res = await legacyRequest(buyer, "balance");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ status: "success", i_account: buyer.iAccount, balance: 42.25, currency: "USD" });
  });

  it("takes the fields as query parameters on GET", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const res = await legacyRequest(buyer, "balance", {}, { method: "GET" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("refuses a wrong key, another account's key and another controller's signature", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const other = await exchangeAccount("buyer", 1);
    for (const res of [
      await legacyRequest(buyer, "balance", {}, { key: "xb_wrong" }),
      await legacyRequest(buyer, "balance", {}, { key: other.apiKey }),
      await rawRequest("POST", `${LEGACY_PREFIX}/balance.php`, {
        api_login: buyer.username,
        ts: now(),
        signature: await legacySignature("lookup", buyer.apiKey, buyer.username, now()),
        webapi: 1,
      }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: "error", message: "signature: invalid" });
      expect(res.headers.get("www-authenticate")).toMatch(/^ExchangeSignature /);
    }
  });

  it("refuses an unknown api_login like a bad signature", async () => {
    const res = await legacyRequest({ username: "nobody-at-all", apiKey: "x" }, "balance");
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("signature: invalid");
  });

  it("refuses a ts outside the window, either way, and accepts one inside it", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const old = await legacyRequest(buyer, "balance", {}, { ts: now() - 31 });
    expect(old.status).toBe(401);
    expect(old.body.message).toMatch(/^ts: more than 30 s from the server's time/);
    expect((await legacyRequest(buyer, "balance", {}, { ts: now() + 40 })).status).toBe(401);
    expect((await legacyRequest(buyer, "balance", {}, { ts: now() - 20 })).status).toBe(200);
  });

  it("takes a signature once: a captured one is refused, whatever fields come with it (issue 20, finding 8)", async () => {
    const buyer = await exchangeAccount("buyer", 5);
    const ts = now();
    const form = async () => ({
      api_login: buyer.username,
      ts,
      signature: await legacySignature("balance", buyer.apiKey, buyer.username, ts),
      webapi: 1,
    });
    expect((await rawRequest("POST", `${LEGACY_PREFIX}/balance.php`, await form())).status).toBe(200);
    const replayed = await rawRequest("POST", `${LEGACY_PREFIX}/balance.php`, await form());
    expect(replayed.status).toBe(401);
    expect(replayed.body.message).toMatch(/^signature: already used/);
    // The next second's ts makes a new signature.
    expect((await legacyRequest(buyer, "balance", {}, { ts: ts + 1 })).status).toBe(200);
  });

  it("requires webapi=1", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const missing = await legacyRequest(buyer, "balance", { webapi: undefined });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ status: "error", message: "webapi: required" });
    const zero = await legacyRequest(buyer, "balance", { webapi: 0 });
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual({ status: "error", message: "webapi: must be 1" });
  });

  it("names each missing or malformed authentication field", async () => {
    const res = await rawRequest("POST", `${LEGACY_PREFIX}/balance.php`, { webapi: 1, ts: "soon", signature: "abc" });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("api_login: required");
    expect(res.body.message).toContain("ts: must be a Unix timestamp in seconds");
    expect(res.body.message).toContain("signature: must be 64 hexadecimal characters (SHA-256)");
  });

  it("answers an unknown controller 404", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const res = await legacyRequest(buyer, "no_such_thing");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: "error", message: "unknown controller no_such_thing" });
  });

  it("accepts multipart form fields too", async () => {
    const buyer = await exchangeAccount("buyer", 3);
    const ts = now();
    const form = new FormData();
    form.set("api_login", buyer.username);
    form.set("ts", String(ts));
    form.set("signature", await legacySignature("balance", buyer.apiKey, buyer.username, ts));
    form.set("webapi", "1");
    const { exports } = await import("cloudflare:workers");
    const res = await exports.default.fetch(new Request(`${ORIGIN}${LEGACY_PREFIX}/balance.php`, { method: "POST", body: form }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "success", balance: 3 });
  });

  it("takes a seller's key on controllers open to either role", async () => {
    const seller = await exchangeAccount("seller", 0);
    const res = await legacyRequest(seller, "lookup", { prefix: "44", type: "CLI" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // balance is a buyer controller: the seller key does not sign it.
    expect((await legacyRequest(seller, "balance")).status).toBe(401);
  });
});

describe("eSIM controllers", () => {
  it("serve the same operations as v2 (esim_countries, esim_market, esim_list, esim_orders)", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const countries = await legacyRequest(buyer, "esim_countries", {}, { method: "GET" });
    expect(countries.status, JSON.stringify(countries.body)).toBe(200);
    expect(countries.body.countries.map((c: any) => c.name)).toContain("FRANCE");
    const market = await legacyRequest(buyer, "esim_market", { country: "FRANCE", pager: 5, off: 0 });
    expect(market.status, JSON.stringify(market.body)).toBe(200);
    expect(market.body).toMatchObject({ status: "success", pager: 5, off: 0 });
    expect((await legacyRequest(buyer, "esim_list")).body).toMatchObject({ status: "success", esims: [] });
    expect((await legacyRequest(buyer, "esim_orders")).body).toMatchObject({ status: "success", orders: [] });
    const bad = await legacyRequest(buyer, "esim_purchase", { i_account: buyer.iAccount, i_esim_package: "x" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^i_esim_package: /);
  });
});

describe("lookup", () => {
  it("finds the calling code and the countries of a prefix", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const res = await legacyRequest(buyer, "lookup", { prefix: "+44 20 7", type: "cli" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "success", prefix: "44207", type: "CLI", calling_code: "44", currency: "USD" });
    // Guernsey and Jersey share the code without leading digits of their own; the Isle of Man has them (7624...).
    expect(res.body.countries.map((c: any) => c.iso2)).toEqual(["GB", "GG", "JE"]);
    expect(res.body.countries[0].name).toBe("UNITED KINGDOM");
    expect(res.body.destination).toBeNull();
    expect(res.body.rates).toEqual([]);
  });

  it("tells countries sharing a code apart by their leading digits", () => {
    expect(callingCodeOf("1876555")).toEqual({ callingCode: "1", iso2: ["JM"] });
    expect(callingCodeOf("77012345")).toEqual({ callingCode: "7", iso2: ["KZ"] });
    expect(callingCodeOf("79161234")).toEqual({ callingCode: "7", iso2: ["RU"] });
    expect(callingCodeOf("1212555")).toEqual({ callingCode: "1", iso2: ["US", "CA"] });
    expect(callingCodeOf("33")?.iso2).toEqual(["FR"]);
    expect(callingCodeOf("999")).toBeNull();
  });

  it("answers the longest published prefix and its rates, cheapest first", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const sellerA = await exchangeAccount("seller", 0);
    const sellerB = await exchangeAccount("seller", 0);
    const at = new Date().toISOString();
    const insert = (vendor: number, service: string, prefix: string, price: number, fee: number) =>
      env.DB.prepare(
        `INSERT INTO exchange_market_rates (i_vendor, service, country, prefix, description, price_micros, fee_micros, active, created_at, updated_at)
         VALUES (?, ?, 'LATVIA', ?, ?, ?, ?, 1, ?, ?)`,
      )
        .bind(vendor, service, prefix, `Latvia ${prefix}`, price, fee, at, at)
        .run();
    await insert(sellerA.iAccount, "voice", "371", 50_000, 5_000);
    await insert(sellerA.iAccount, "voice", "3712", 90_000, 9_000);
    await insert(sellerB.iAccount, "voice", "3712", 80_000, 8_000);
    await insert(sellerB.iAccount, "sms", "3712", 20_000, 2_000);
    const voice = await legacyRequest(buyer, "lookup", { prefix: "37120000", type: "CLI" });
    expect(voice.status, JSON.stringify(voice.body)).toBe(200);
    expect(voice.body.destination).toEqual({ prefix: "3712", country: "LATVIA", description: "Latvia 3712" });
    expect(voice.body.rates).toEqual([
      { i_vendor: sellerB.iAccount, vendor: sellerB.username, prefix: "3712", price_with_fee: 0.088 },
      { i_vendor: sellerA.iAccount, vendor: sellerA.username, prefix: "3712", price_with_fee: 0.099 },
    ]);
    const sms = await legacyRequest(buyer, "lookup", { prefix: "37120000", type: "SMS" });
    expect(sms.body.rates).toEqual([{ i_vendor: sellerB.iAccount, vendor: sellerB.username, prefix: "3712", price_with_fee: 0.022 }]);
    const shorter = await legacyRequest(buyer, "lookup", { prefix: "3719" });
    expect(shorter.body.type).toBe("CLI");
    expect(shorter.body.rates.map((r: any) => r.prefix)).toEqual(["371"]);
  });

  it("names the field of bad input", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const badPrefix = await legacyRequest(buyer, "lookup", { prefix: "12a", type: "CLI" });
    expect(badPrefix.status).toBe(400);
    expect(badPrefix.body).toEqual({ status: "error", message: "prefix: must be 1 to 15 digits, optionally after +" });
    const noPrefix = await legacyRequest(buyer, "lookup", { type: "CLI" });
    expect(noPrefix.body).toEqual({ status: "error", message: "prefix: required" });
    const badType = await legacyRequest(buyer, "lookup", { prefix: "44", type: "FAX" });
    expect(badType.body).toEqual({ status: "error", message: "type: must be one of CLI, NCLI, SMS" });
  });
});
