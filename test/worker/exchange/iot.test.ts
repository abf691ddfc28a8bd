// IoT: devices registered on the buyer's eSIMs, ingestion authenticated by the device token and
// charged per event through the AccountLedger, and /buyers/iothistory by date range.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { purchaseEsim } from "../../../worker/services/exchange/esim/purchase.ts";
import { exchangeSettings } from "../../../worker/services/exchange/settings.ts";
import { iotHistory } from "../../../worker/services/exchange/iot/history.ts";
import { IotHistory } from "../../../worker/services/exchange/iot/schemas.ts";
import { parseFields } from "../../../worker/exchange/respond.ts";
import { exchangeAccount, exchangeClient } from "../fixtures/exchange-client.ts";
import { account, balanceMicros, deps, publish, rows } from "../fixtures/exchange-esim.ts";

const EVENTS = "https://exchange.test/exchange/iot/events";
const charge = () => exchangeSettings(env).iotEventChargeMicros;

async function sendEvent(token: string | null, form: Record<string, string>, json = false) {
  const headers: Record<string, string> = { "content-type": json ? "application/json" : "application/x-www-form-urlencoded" };
  if (token) headers.authorization = `Bearer ${token}`;
  const body = json ? JSON.stringify(form) : new URLSearchParams(form).toString();
  const res = await exports.default.fetch(new Request(EVENTS, { method: "POST", headers, body }));
  return { status: res.status, body: (await res.json()) as any };
}

/** A buyer (Digest client) with an eSIM and a registered device. */
async function deviceSetup(balanceUsd: number | string = 10) {
  const seller = await account("seller");
  const pkg = await publish(seller, { price: "1" });
  const buyer = await exchangeAccount("buyer", balanceUsd);
  const principal = { iAccount: buyer.iAccount, username: buyer.username, role: "buyer" as const, accountRole: "buyer" as const };
  const esim = await purchaseEsim(deps(), principal, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package });
  const client = exchangeClient(buyer);
  const registered = await client.post("/buyers/iot/devices", { iccid: esim.iccid, device: "meter-1", label: "Water meter" });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  return { buyer, client, iccid: esim.iccid, token: registered.body.token as string };
}

describe("devices", () => {
  it("registers a device on the buyer's own eSIM and shows its token once", async () => {
    const { client, iccid, token } = await deviceSetup();
    expect(token).toMatch(/^iot_[A-Za-z0-9_-]{43}$/);
    const listed = await client.post("/buyers/iot/devices/list", {});
    expect(listed.body).toMatchObject({ status: "success", total: 1, devices: [{ device: "meter-1", iccid, label: "Water meter" }] });
    expect(JSON.stringify(listed.body)).not.toContain(token);
  });

  it("refuses another account's eSIM and bad fields, naming them", async () => {
    const { iccid } = await deviceSetup();
    const stranger = exchangeClient(await exchangeAccount("buyer", 1));
    expect((await stranger.post("/buyers/iot/devices", { iccid, device: "x" })).body).toEqual({
      status: "error",
      message: "iccid: unknown ICCID",
    });
    expect((await stranger.post("/buyers/iot/devices", { iccid: "123", device: "x" })).body.message).toMatch(/^iccid: /);
    expect((await stranger.post("/buyers/iot/devices", { iccid, device: "bad device!" })).body.message).toMatch(/^device: /);
    expect((await stranger.post("/buyers/iot/devices/delete", { device: "meter-1" })).body).toEqual({
      status: "error",
      message: "device: unknown device",
    });
  });

  it("rotates the token when the device is registered again; the old one stops working", async () => {
    const { client, iccid, token } = await deviceSetup();
    const again = await client.post("/buyers/iot/devices", { iccid, device: "meter-1" });
    expect(again.body.token).not.toBe(token);
    expect((await sendEvent(token, { topic: "t" })).status).toBe(401);
    expect((await sendEvent(again.body.token, { topic: "t" })).status).toBe(200);
    await client.post("/buyers/iot/devices/delete", { device: "meter-1" });
    expect((await sendEvent(again.body.token, { topic: "t" })).status).toBe(401);
  });
});

describe("ingestion", () => {
  it("records each event with time, topic, payload and direction, and charges the owner per event", async () => {
    const { buyer, iccid, token } = await deviceSetup(10);
    const before = await balanceMicros(buyer.iAccount);
    const first = await sendEvent(token, { topic: "meters/1/reading", payload: '{"litres":42}' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.event).toMatchObject({ device: "meter-1", iccid, charged: charge() / 1e6 });
    const second = await sendEvent(token, { topic: "meters/1/config", payload: { interval: 60 } as any, direction: "outbound" }, true);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(await balanceMicros(buyer.iAccount)).toBe(before - 2 * charge());

    const history = await exchangeClient(buyer).post("/buyers/iothistory", {
      date_from: "2000-01-01 00:00:00",
      date_to: "2099-12-31 23:59:59",
    });
    expect(history.body).toMatchObject({ status: "success", total: 2 });
    expect(history.body.events.map((e: any) => [e.topic, e.payload, e.direction])).toEqual([
      ["meters/1/config", '{"interval":60}', "outbound"],
      ["meters/1/reading", '{"litres":42}', "inbound"],
    ]);
    expect(history.body.events[0]).toMatchObject({ device: "meter-1", iccid, charged: charge() / 1e6 });
    expect(history.body.events[0].time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("refuses events the balance cannot pay, storing nothing", async () => {
    const { buyer, token } = await deviceSetup("1.1055"); // the eSIM costs 1.10: 0.0055 left
    const left = await balanceMicros(buyer.iAccount);
    expect(left).toBe(5_500);
    const affordable = Math.floor(left / charge());
    expect(affordable).toBe(5);
    const results = await Promise.all(Array.from({ length: affordable + 5 }, () => sendEvent(token, { topic: "burst" })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(affordable);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r).toEqual({ status: 402, body: { status: "error", message: "i_account: insufficient balance" } });
    expect(await rows("iot_events", buyer.iAccount)).toBe(affordable);
    expect(await balanceMicros(buyer.iAccount)).toBe(left - affordable * charge());
  });

  it("refuses missing or unknown tokens and bad fields", async () => {
    const { token } = await deviceSetup();
    expect(await sendEvent(null, { topic: "t" })).toMatchObject({ status: 401, body: { status: "error" } });
    expect(await sendEvent("iot_" + "A".repeat(43), { topic: "t" })).toMatchObject({ status: 401 });
    expect(await sendEvent(token, {})).toMatchObject({ status: 400, body: { message: "topic: required" } });
    expect(await sendEvent(token, { topic: "t", direction: "sideways" })).toMatchObject({ status: 400, body: { message: /^direction: / } });
    expect(await sendEvent(token, { topic: "t", payload: "x".repeat(20_000) })).toMatchObject({
      status: 400,
      body: { message: /^payload: / },
    });
  });
});

describe("history", () => {
  it("requires both dates, in order, and shows only the account's events", async () => {
    expect(() => parseFields(IotHistory, { date_to: "2026-01-01 00:00:00" })).toThrow(/^date_from: required/);
    expect(() => parseFields(IotHistory, { date_from: "2026-01-01 00:00:00" })).toThrow(/^date_to: required/);
    expect(() => parseFields(IotHistory, { date_from: "2026-01-01T00:00:00Z", date_to: "2026-01-02 00:00:00" })).toThrow(/^date_from: /);
    const { buyer, token } = await deviceSetup();
    await sendEvent(token, { topic: "t" });
    const stranger = await exchangeAccount("buyer", 1);
    const range = parseFields(IotHistory, { date_from: "2000-01-01 00:00:00", date_to: "2099-01-01 00:00:00" });
    expect((await iotHistory(deps(), buyer.iAccount, range)).total).toBe(1);
    expect((await iotHistory(deps(), stranger.iAccount, range)).total).toBe(0);
    const reversed = await exchangeClient(buyer).post("/buyers/iothistory", {
      date_from: "2026-02-01 00:00:00",
      date_to: "2026-01-01 00:00:00",
    });
    expect(reversed).toMatchObject({ status: 400, body: { status: "error", message: "date_to: must not be before date_from" } });
    const past = await exchangeClient(buyer).post("/buyers/iothistory", {
      date_from: "2000-01-01 00:00:00",
      date_to: "2000-01-02 00:00:00",
    });
    expect(past.body).toMatchObject({ status: "success", total: 0, events: [] });
  });
});
