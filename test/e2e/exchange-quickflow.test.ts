// The README's "Exchange quick flow" as a new user follows it on a fresh machine: the first `npm
// start` from an empty state (LOCAL_STATE_DIR, a new folder) publishes the demo market and records
// the demo IoT history, then only `curl --digest` with the demo buyer it prints: countries, the
// market for destinations on three continents, a purchase with an Idempotency-Key, the eSIM in the
// list with its QR code, a top-up, the same purchase retried with its key, charged once, and the
// buyer's IoT history (issue 27 items 2 and 7).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { curl } from "./curl.ts";
import { startNpm, type NpmStart } from "./npm-start.ts";

const scratch = mkdtempSync(join(tmpdir(), "exchange-quickflow-"));
/** An empty state: local D1 and the demo accounts as on a machine that never ran npm start. */
const freshState = mkdtempSync(join(tmpdir(), "exchange-quickflow-state-"));
let app: NpmStart;
let base = "";

type Buyer = { username: string; key: string; iAccount: number; balance: number };

/** curl --digest as the README writes it; a 429 (the demo buyer's 10 requests a second) is waited out as a client would. */
async function digest(
  buyer: Buyer,
  method: "GET" | "POST",
  path: string,
  form: Record<string, string | number> = {},
  headers: string[] = [],
) {
  const args = [
    "--digest",
    "-u",
    `${buyer.username}:${buyer.key}`,
    ...headers.flatMap((h) => ["-H", h]),
    ...(method === "GET" ? ["-G"] : ["-X", "POST"]),
    ...Object.entries(form).flatMap(([k, v]) => ["--data-urlencode", `${k}=${v}`]),
    `${base}/exchange${path}`,
  ];
  for (let attempt = 0; ; attempt++) {
    const reply = await curl(scratch, args);
    if (reply.status !== 429 || attempt >= 5) return reply;
    await new Promise((r) => setTimeout(r, 1100));
  }
}

beforeAll(async () => {
  app = await startNpm({ stateDir: freshState });
  base = app.base;
});

afterAll(async () => {
  await app?.stop();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(freshState, { recursive: true, force: true });
});

describe("the exchange quick flow on npm start", () => {
  let buyer: Buyer;

  it("prints the demo buyer, the demo market's destinations and the quick flow's curl commands", async () => {
    await app.waitForOutput(/Ctrl-C stops everything/, 170_000);
    const [, username, key, iAccount, balance] = /Demo buyer (\S+) \/ (\S+)\s+\(i_account (\d+), ([\d.]+) USD\)/.exec(app.output())!;
    buyer = { username: username!, key: key!, iAccount: Number(iAccount), balance: Number(balance) };
    // The seeding worked on the first start (it once met SQLITE_BUSY and published nothing), and npm start checked it as a buyer.
    const [, destinations] = /Exchange quick flow \(the demo seller's market: (\d+) destinations/.exec(app.output())!;
    expect(Number(destinations)).toBeGreaterThan(0);
    expect(app.output()).not.toMatch(/NOT READY|could not (publish|record|create|turn)|SQLITE_BUSY/);
    expect(app.output()).toContain(`curl --digest -u ${username}:${key} ${base}/exchange/buyers/esim/countries`);
    expect(app.output()).toMatch(/curl --digest -u \S+ -d country=FRANCE -d data_GB=5 \S+\/exchange\/buyers\/esim\/market/);
    expect(app.output()).toMatch(/curl --digest -u \S+ -H 'Idempotency-Key: "order-1"' -d i_account=\d+ -d i_esim_package=/);
  });

  it("buys from the demo market with curl --digest only, and a retried purchase is charged once", async () => {
    const countries = await digest(buyer, "GET", "/buyers/esim/countries");
    expect(countries.status, JSON.stringify(countries.body)).toBe(200);
    const names = countries.body.countries.map((c: { name: string }) => c.name);

    // Three continents (and the Middle East and Africa besides): each has offers.
    const offers: Record<string, any[]> = {};
    for (const country of ["FRANCE", "JAPAN", "UNITED STATES", "UNITED ARAB EMIRATES", "SOUTH AFRICA"]) {
      expect(names).toContain(country);
      const market = await digest(buyer, "POST", "/buyers/esim/market", { country, pager: 100, off: 0 });
      expect(market.status, JSON.stringify(market.body)).toBe(200);
      expect(market.body.total, country).toBeGreaterThan(0);
      offers[country] = market.body.packages;
    }
    // Several sizes per destination, unlimited included.
    const sizes = new Set(offers.JAPAN!.map((p) => p.data_gb));
    for (const gb of [0.5, 1, 5, 10, 20, -1]) expect(sizes, `JAPAN ${gb} GB`).toContain(gb);

    // The banner prints the balance as it is: 100 USD less the demo IoT history's eSIM and events.
    const before = (await digest(buyer, "POST", "/buyers/balance")).body.balance as number;
    expect(before).toBe(buyer.balance);
    expect(before).toBeGreaterThan(90);

    const offer = offers.FRANCE!.find((p) => p.name === "France 1 GB 7 days") ?? offers.FRANCE![0];
    const key = `quickflow-${randomBytes(8).toString("hex")}`;
    const purchaseForm = { i_account: buyer.iAccount, i_esim_package: offer.i_esim_package };
    const keyHeader = [`Idempotency-Key: "${key}"`];
    const bought = await digest(buyer, "POST", "/buyers/esim/purchase", purchaseForm, keyHeader);
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    expect(bought.body).toMatchObject({
      status: "success",
      iccid: expect.stringMatching(/^\d{19,20}$/),
      lpa: expect.stringMatching(/^LPA:1\$/),
    });
    const iccid = bought.body.iccid as string;

    const list = await digest(buyer, "POST", "/buyers/esim/list", { iccid, pager: 10, off: 0 });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.esims).toHaveLength(1);
    expect(list.body.esims[0]).toMatchObject({ iccid, lpa: bought.body.lpa });
    const png = Buffer.from(list.body.esims[0].qr_base64 as string, "base64");
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);

    const topups = await digest(buyer, "POST", "/buyers/esim/topup/list", { iccid });
    expect(topups.status, JSON.stringify(topups.body)).toBe(200);
    expect(topups.body.packages.length).toBeGreaterThan(0);
    const topup = topups.body.packages[0];
    const topped = await digest(buyer, "POST", "/buyers/esim/topup/purchase", {
      iccid,
      package_type_id: topup.package_type_id,
      i_account: buyer.iAccount,
    });
    expect(topped.status, JSON.stringify(topped.body)).toBe(200);

    // The link dropped: the buyer sends the same purchase again with the same key.
    const retried = await digest(buyer, "POST", "/buyers/esim/purchase", purchaseForm, keyHeader);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toEqual(bought.body);
    expect(retried.headers).toMatch(/Idempotent-Replayed: true/i);
    // The same key for another package is refused.
    const other = offers.FRANCE!.find((p) => p.i_esim_package !== offer.i_esim_package);
    const misused = await digest(
      buyer,
      "POST",
      "/buyers/esim/purchase",
      { ...purchaseForm, i_esim_package: other.i_esim_package },
      keyHeader,
    );
    expect(misused.status).toBe(422);

    const after = (await digest(buyer, "POST", "/buyers/balance")).body.balance as number;
    expect(after).toBeCloseTo(before - bought.body.amount_charged - topped.body.amount_charged, 6);
    const inventory = await digest(buyer, "POST", "/buyers/esim/list", { iccid, pager: 10, off: 0 });
    expect(inventory.body.total).toBe(1);
  });

  it("shows the demo buyer an IoT history: devices, topics, payloads, inbound, charged", async () => {
    const [, printed] = /IoT history \(the demo buyer's devices: (\d+) events/.exec(app.output())!;
    expect(Number(printed)).toBeGreaterThan(0);
    const history = await digest(buyer, "POST", "/buyers/iothistory", {
      date_from: "2000-01-01 00:00:00",
      date_to: "2100-01-01 00:00:00",
      pager: 100,
    });
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(history.body.total).toBe(Number(printed));
    const events = history.body.events as { device: string; topic: string; payload: string; direction: string; charged: number }[];
    expect(new Set(events.map((e) => e.device)).size).toBeGreaterThan(1);
    for (const event of events) {
      expect(event).toMatchObject({ direction: "inbound", charged: expect.any(Number) });
      expect(event.topic.length).toBeGreaterThan(0);
      expect(event.payload.length).toBeGreaterThan(0);
    }
    const devices = await digest(buyer, "POST", "/buyers/iot/devices/list", {});
    expect(devices.body.total).toBeGreaterThan(1);
  });
});
