// Conventions of the exchange API: JSON {status, message} everywhere, 400s naming the field,
// rate limits per account (429 with Retry-After), the prefixes, and the admin endpoints.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { exchangePath } from "../../../worker/exchange/app.ts";
import { parseFields } from "../../../worker/exchange/respond.ts";
import { field, optional, paging, required, withDefault } from "../../../worker/services/exchange/fields.ts";
import { request } from "../fixtures/client.ts";
import { admin, digestRequest, exchangeAccount, PREFIX, rawRequest } from "../fixtures/exchange-client.ts";

const BALANCE = `${PREFIX}/buyers/balance`;

describe("answers", () => {
  it("answers an unknown exchange path 404 in the exchange's shape, and leaves /api alone", async () => {
    const res = await rawRequest("GET", `${PREFIX}/no/such/path`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: "error", message: "not found" });
    expect((await request("GET", "/api/health")).status).toBe(200);
    const apiMissing = await request("GET", "/api/no-such-thing");
    expect(apiMissing.body).toEqual({ detail: "Not Found" });
    expect((await request("GET", "/exchangex")).body).toEqual({ detail: "Not Found" });
  });

  it("maps the configured prefixes, including a dedicated hostname's root", () => {
    const defaults = { EXCHANGE_PREFIX: "/exchange", EXCHANGE_LEGACY_PREFIX: "/exchange/v1" };
    expect(exchangePath("/exchange/buyers/balance", defaults)).toBe("/buyers/balance");
    expect(exchangePath("/exchange", defaults)).toBe("/");
    expect(exchangePath("/exchange/v1/lookup.php", defaults)).toBe("/v1/lookup");
    expect(exchangePath("/exchangeX/buyers", defaults)).toBeNull();
    expect(exchangePath("/api/health", defaults)).toBeNull();
    const root = { EXCHANGE_PREFIX: "", EXCHANGE_LEGACY_PREFIX: "" };
    expect(exchangePath("/buyers/balance", root)).toBe("/buyers/balance");
    expect(exchangePath("/lookup.php", root)).toBe("/v1/lookup");
    const split = { EXCHANGE_PREFIX: "/v2", EXCHANGE_LEGACY_PREFIX: "/v1" };
    expect(exchangePath("/v1/balance.php", split)).toBe("/v1/balance");
    expect(exchangePath("/v2/buyers/esim/market", split)).toBe("/buyers/esim/market");
    const hosted = { ...defaults, EXCHANGE_HOSTNAME: "exchange.example.net" };
    expect(exchangePath("/buyers/balance", hosted, "Exchange.Example.NET")).toBe("/buyers/balance");
    expect(exchangePath("/v1/balance.php", hosted, "exchange.example.net")).toBe("/v1/balance");
    expect(exchangePath("/balance.php", hosted, "exchange.example.net")).toBe("/v1/balance");
    expect(exchangePath("/buyers/balance", hosted, "api.example.net")).toBeNull();
    expect(exchangePath("/exchange/buyers/balance", hosted, "api.example.net")).toBe("/buyers/balance");
  });
});

describe("form fields", () => {
  const schema = z.object({
    i_esim_package: required(field.integer(1)),
    max_price: optional(field.number(0)),
    date_from: optional(field.datetime()),
    country: withDefault(field.text(50), "ANY"),
    ...paging(20),
  });

  it("reads text values, defaults and blanks", () => {
    expect(parseFields(schema, { i_esim_package: "7", max_price: "", date_from: "2026-01-02 03:04:05" })).toEqual({
      i_esim_package: 7,
      date_from: "2026-01-02T03:04:05.000Z",
      country: "ANY",
      pager: 20,
      off: 0,
    });
  });

  it("names every field that does not fit, one problem each", () => {
    const attempt = () => parseFields(schema, { max_price: "cheap", date_from: "2026-02-30 00:00:00", pager: "1000", off: "-1" });
    expect(attempt).toThrowError(
      "i_esim_package: required; max_price: must be a number; date_from: not a valid date and time; pager: must be at most 100; off: must be at least 0",
    );
    expect(() => parseFields(schema, { i_esim_package: "1.5" })).toThrowError("i_esim_package: must be an integer");
  });
});

describe("rate limits", () => {
  it("answers 429 with Retry-After past the per-second cap", async () => {
    const buyer = await exchangeAccount("buyer", 1, { perSecondCap: 2 });
    const replies = await Promise.all(Array.from({ length: 10 }, () => digestRequest(buyer, "POST", BALANCE)));
    const refused = replies.filter((r) => r.status === 429);
    expect(replies.filter((r) => r.status === 200).length).toBeLessThanOrEqual(4);
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(refused[0]!.body).toEqual({ status: "error", message: "rate limit exceeded" });
    expect(refused[0]!.headers.get("retry-after")).toBe("1");
  });

  it("answers 429 past the hourly quota, with the wait until the window ends", async () => {
    const buyer = await exchangeAccount("buyer", 1, { hourlyQuota: 3 });
    for (let i = 0; i < 3; i++) expect((await digestRequest(buyer, "POST", BALANCE)).status).toBe(200);
    const refused = await digestRequest(buyer, "POST", BALANCE);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: "error", message: "rate limit exceeded" });
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);
  });

  it("applies the platform default (10 a second) to an account without its own", async () => {
    const buyer = await exchangeAccount("buyer", 1, { perSecondCap: null, hourlyQuota: null });
    const replies = await Promise.all(Array.from({ length: 25 }, () => digestRequest(buyer, "POST", BALANCE)));
    expect(replies.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(5);
  });

  it("counts per account: one account's limit leaves another alone", async () => {
    const busy = await exchangeAccount("buyer", 1, { hourlyQuota: 1 });
    const quiet = await exchangeAccount("buyer", 1, { hourlyQuota: 1 });
    expect((await digestRequest(busy, "POST", BALANCE)).status).toBe(200);
    expect((await digestRequest(busy, "POST", BALANCE)).status).toBe(429);
    expect((await digestRequest(quiet, "POST", BALANCE)).status).toBe(200);
  });
});

describe("admin endpoints", () => {
  it("need the operator token", async () => {
    const res = await admin("/accounts", { role: "buyer" }, "not-the-token");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: "error", message: "admin token required" });
  });

  it("create an account with an integer id, a key of its role and the opening balance", async () => {
    const res = await admin("/accounts", { role: "seller", balance: "7.5", username: `seller-${Date.now()}` });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "success", role: "seller", balance: 7.5 });
    expect(Number.isInteger(res.body.i_account)).toBe(true);
    expect(res.body.api_key).toMatch(/^xs_[A-Za-z0-9_-]{43}$/);
    const generated = await admin("/accounts", { role: "buyer" });
    expect(generated.body.username).toMatch(/^buyer-/);
    expect(generated.body.api_key).toMatch(/^xb_/);
    expect(generated.body.i_account).toBeGreaterThan(res.body.i_account);
  });

  it("name the field of bad input and refuse a taken username", async () => {
    expect((await admin("/accounts", { role: "broker" })).body).toEqual({ status: "error", message: "role: must be buyer or seller" });
    expect((await admin("/accounts", {})).body).toEqual({ status: "error", message: "role: required" });
    expect((await admin("/accounts", { role: "buyer", balance: "lots" })).body).toEqual({
      status: "error",
      message: "balance: must be a USD amount such as 12.50",
    });
    expect((await admin("/accounts", { role: "buyer", username: "a b" })).status).toBe(400);
    const taken = `taken-${Date.now()}`;
    expect((await admin("/accounts", { role: "buyer", username: taken })).status).toBe(201);
    const again = await admin("/accounts", { role: "buyer", username: taken });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ status: "error", message: "username: already taken" });
    expect((await admin("/accounts/999999/keys", { role: "buyer" })).status).toBe(404);
  });

  it("credit an account through its ledger, once per reference", async () => {
    const buyer = await exchangeAccount("buyer", 10);
    const first = await admin(`/accounts/${buyer.iAccount}/credit`, { amount: "2.345678", reference: "wire-1" });
    expect(first.body).toEqual({ status: "success", i_account: buyer.iAccount, balance: 12.345678, currency: "USD" });
    const repeat = await admin(`/accounts/${buyer.iAccount}/credit`, { amount: "2.345678", reference: "wire-1" });
    expect(repeat.body.balance).toBe(12.345678);
    expect((await digestRequest(buyer, "POST", BALANCE)).body.balance).toBe(12.345678);
  });
});
