// The demo IoT history (`npm run exchange -- seed-iot`): a buyer's devices and their events,
// recorded the way production records them. The buyer buys an eSIM (with an Idempotency-Key, so a
// second run buys nothing more), registers each device on it (POST /buyers/iot/devices, which
// shows the device's token), and each device sends its events with that token to POST /iot/events,
// charged IOT_EVENT_CHARGE_USD each. A device whose history already has events sends none again.
import { digestClient } from "./digest-client.mjs";

/** The demo devices and what each reports (all inbound: device to platform). */
export const DEMO_DEVICES = [
  {
    device: "demo-water-meter",
    label: "Water meter, warehouse 3",
    events: [
      { topic: "meters/water/reading", payload: { litres: 182_340.5, flow_lpm: 0, battery_pct: 97 } },
      { topic: "meters/water/reading", payload: { litres: 182_412.0, flow_lpm: 12.4, battery_pct: 97 } },
      { topic: "meters/water/leak", payload: { suspected: true, continuous_flow_minutes: 95 } },
      { topic: "status/heartbeat", payload: { uptime_s: 864_000, rssi_dbm: -87, firmware: "2.4.1" } },
    ],
  },
  {
    device: "demo-pallet-tracker",
    label: "Pallet tracker, Lyon to Munich",
    events: [
      { topic: "tracker/position", payload: { lat: 45.764, lon: 4.8357, speed_kmh: 0, fix: "3d" } },
      { topic: "tracker/position", payload: { lat: 46.2044, lon: 6.1432, speed_kmh: 88, fix: "3d" } },
      { topic: "tracker/geofence", payload: { event: "exit", zone: "depot-lyon" } },
      { topic: "tracker/position", payload: { lat: 48.1351, lon: 11.582, speed_kmh: 0, fix: "3d" } },
    ],
  },
  {
    device: "demo-cold-room",
    label: "Cold room sensor",
    events: [
      { topic: "sensors/climate", payload: { celsius: 3.8, humidity_pct: 71 } },
      { topic: "alarms/door", payload: { open: true, seconds: 240 } },
      { topic: "sensors/climate", payload: { celsius: 7.9, humidity_pct: 76 } },
      { topic: "alarms/temperature", payload: "above 7 C for 10 minutes" },
    ],
  },
];

/** The whole history, from before any event to tomorrow (the exchange's datetime format, UTC). */
function allTime() {
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  return { date_from: "2000-01-01 00:00:00", date_to: tomorrow.slice(0, 19).replace("T", " ") };
}

function expectOk(what, res) {
  if (res.status !== 200 || res.body?.status === "error") throw new Error(`${what}: ${res.status} ${res.body?.message ?? ""}`.trim());
  return res.body;
}

/** The eSIM the demo devices live on: the cheapest 1 GB for `country` (else the cheapest on the market), bought once. */
async function demoEsim(client, iAccount, country) {
  let market = await client.post("/buyers/esim/market", { country, data_GB: 1, pager: 1, off: 0 });
  if (market.status !== 200 || market.body.packages?.length === 0) market = await client.post("/buyers/esim/market", { pager: 1, off: 0 });
  const [offer] = expectOk("market", market).packages;
  if (!offer) throw new Error("the market has no package to put the demo devices on (publish the demo market first: seed-market)");
  const bought = await client.post(
    "/buyers/esim/purchase",
    { i_account: iAccount, i_esim_package: offer.i_esim_package },
    { "Idempotency-Key": `"demo-iot-esim-${iAccount}"` },
  );
  return expectOk("purchase the demo devices' eSIM", bought);
}

/**
 * Records the demo history for buyer `username` (API key `key`) on the exchange at `base`.
 * Returns {devices, events: {sent, existing}, iccid, charged} (charged: USD spent by this run).
 */
export async function seedIotHistory(base, username, key, { country = "GERMANY", fetch: fetchImpl = fetch } = {}) {
  const client = digestClient(base, username, key, { fetch: fetchImpl });
  const { i_account: iAccount } = expectOk("balance", await client.post("/buyers/balance"));
  const registered = new Map(
    expectOk("devices", await client.post("/buyers/iot/devices/list", { pager: 1000, off: 0 })).devices.map((d) => [d.device, d]),
  );
  const summary = { devices: DEMO_DEVICES.length, events: { sent: 0, existing: 0 }, iccid: null, charged: 0 };
  const pending = [];
  for (const demo of DEMO_DEVICES) {
    const existing = registered.has(demo.device)
      ? expectOk("history", await client.post("/buyers/iothistory", { ...allTime(), device: demo.device, pager: 1, off: 0 })).total
      : 0;
    summary.events.existing += existing;
    summary.iccid ??= registered.get(demo.device)?.iccid ?? null;
    if (existing === 0) pending.push(demo);
  }
  if (pending.length === 0) return summary;

  if (!summary.iccid) {
    const esim = await demoEsim(client, iAccount, country);
    summary.iccid = esim.iccid;
    summary.charged += Number(esim.amount_charged ?? 0);
  }
  for (const demo of pending) {
    // Registering again rotates the token: the one shown now is the device's only working token.
    const { token } = expectOk(
      `register ${demo.device}`,
      await client.post("/buyers/iot/devices", { iccid: summary.iccid, device: demo.device, label: demo.label }),
    );
    for (const event of demo.events) {
      const res = await fetchImpl(`${base}/iot/events`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ ...event, direction: "inbound" }),
      });
      const body = await res.json().catch(() => ({}));
      expectOk(`${demo.device} ${event.topic}`, { status: res.status, body });
      summary.events.sent++;
      summary.charged += Number(body.event?.charged ?? 0);
    }
  }
  summary.charged = Math.round(summary.charged * 1e6) / 1e6;
  return summary;
}
