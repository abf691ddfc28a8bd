// Issue 27 item 7: `npm run exchange -- seed-iot` (scripts/lib/demo-iot.mjs), which npm start runs
// for the demo buyer, through the Worker: the buyer's eSIM, its devices and their events recorded
// the way production records them, shown by /buyers/iothistory, and a second run adds nothing.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEMO_DEVICES, seedIotHistory } from "../../../scripts/lib/demo-iot.mjs";
import { exchangeAccount, exchangeClient, ORIGIN, PREFIX } from "../fixtures/exchange-client.ts";
import { account, publish } from "../fixtures/exchange-esim.ts";

const viaWorker = (input: string, init?: RequestInit) => exports.default.fetch(new Request(input, init));
const EVENTS = DEMO_DEVICES.reduce((n, d) => n + d.events.length, 0);

describe("seed-iot: the demo IoT history", () => {
  it("gives a buyer devices on an eSIM and a history of inbound, charged events; running it again adds nothing", async () => {
    const seller = await account("seller");
    await publish(seller, { name: "Germany 1 GB 7 days", countries: ["GERMANY"], data_gb: 1, validity_days: 7, price: "1.5" });
    const buyer = await exchangeAccount("buyer", 10);
    const client = exchangeClient(buyer);

    const first = await seedIotHistory(`${ORIGIN}${PREFIX}`, buyer.username, buyer.apiKey, { fetch: viaWorker });
    expect(first).toMatchObject({ devices: DEMO_DEVICES.length, events: { sent: EVENTS, existing: 0 } });
    expect(first.iccid).toMatch(/^\d{19,20}$/);

    const history = await client.post("/buyers/iothistory", {
      date_from: "2000-01-01 00:00:00",
      date_to: "2100-01-01 00:00:00",
      pager: 100,
    });
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(history.body.total).toBe(EVENTS);
    const events = history.body.events as {
      device: string;
      iccid: string;
      topic: string;
      payload: string;
      direction: string;
      charged: number;
    }[];
    expect(new Set(events.map((e) => e.device))).toEqual(new Set(DEMO_DEVICES.map((d) => d.device)));
    for (const event of events) {
      expect(event).toMatchObject({ iccid: first.iccid, direction: "inbound", charged: 0.001 });
      expect(event.topic).toMatch(/\//);
      expect(event.payload.length).toBeGreaterThan(0);
    }
    expect(events.map((e) => e.topic)).toContain("meters/water/reading");

    const devices = await client.post("/buyers/iot/devices/list", {});
    expect(devices.body.total).toBe(DEMO_DEVICES.length);
    const balance = (await client.post("/buyers/balance", {})).body.balance as number;
    expect(balance).toBeCloseTo(10 - first.charged, 6);
    expect(first.charged).toBeGreaterThan(EVENTS * 0.001);

    // npm start runs it on every start until it has succeeded once; a rerun buys and sends nothing.
    const again = await seedIotHistory(`${ORIGIN}${PREFIX}`, buyer.username, buyer.apiKey, { fetch: viaWorker });
    expect(again).toMatchObject({ events: { sent: 0, existing: EVENTS }, iccid: first.iccid, charged: 0 });
    expect((await client.post("/buyers/balance", {})).body.balance).toBe(balance);
    expect((await client.post("/buyers/esim/list", {})).body.total).toBe(1);
  });
});
