// Idempotency-Key on the buyer's purchases (IETF httpapi idempotency-key draft), through HTTP
// Digest as a client sends it: a retry answers the first result and charges nothing more; the key
// with another body is refused (422); concurrent retries charge once; keys are per account; a
// failed first attempt frees the key; the cron sweep forgets keys after 24 hours.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sweepExchangeIdempotencyKeys } from "../../../worker/cron/exchange-idempotency.ts";
import { idempotencyKeyOf } from "../../../worker/exchange/idempotency.ts";
import { database } from "../../../worker/lib/db.ts";
import {
  exchangeAccount,
  exchangeClient,
  LEGACY_PREFIX,
  legacySignature,
  nextLegacyTs,
  rawRequest,
  type ExchangeAccount,
} from "../fixtures/exchange-client.ts";

type Client = ReturnType<typeof exchangeClient>;

async function market() {
  const seller = exchangeClient(await exchangeAccount("seller"));
  const pkg = await seller.post("/sellers/esim/packages/publish", {
    name: "Japan 5 GB",
    countries: "JAPAN",
    data_gb: "5",
    validity_days: "30",
    price: "10",
  });
  const other = await seller.post("/sellers/esim/packages/publish", {
    name: "Japan 1 GB",
    countries: "JAPAN",
    data_gb: "1",
    validity_days: "7",
    price: "3",
  });
  const topup = await seller.post("/sellers/esim/topups/publish", {
    name: "Japan +1 GB",
    supported_countries: "JAPAN",
    data_GB: "1",
    validity_days: "7",
    price: "2",
  });
  expect([pkg.status, other.status, topup.status]).toEqual([200, 200, 200]);
  return {
    iEsimPackage: pkg.body.package.i_esim_package as number,
    otherPackage: other.body.package.i_esim_package as number,
    packageTypeId: topup.body.topup.package_type_id as number,
  };
}

const keyed = (account: ExchangeAccount, key: string) => exchangeClient(account, { headers: { "Idempotency-Key": `"${key}"` } });
const balanceOf = async (client: Client) => (await client.post("/buyers/balance")).body.balance as number;
const esimCount = async (iAccount: number) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM esims WHERE i_account = ?").bind(iAccount).first<{ n: number }>())!.n;

describe("Idempotency-Key on purchases", () => {
  it("answers a retry with the first result and charges once", async () => {
    const { iEsimPackage } = await market();
    const buyer = await exchangeAccount("buyer", 100);
    const client = keyed(buyer, "retry-1");
    const first = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const second = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await balanceOf(exchangeClient(buyer))).toBeCloseTo(100 - first.body.amount_charged, 6);
    expect(await esimCount(buyer.iAccount)).toBe(1);
  });

  it("refuses the same key with a different body (422) and charges nothing for it", async () => {
    const { iEsimPackage, otherPackage } = await market();
    const buyer = await exchangeAccount("buyer", 100);
    const client = keyed(buyer, "body-1");
    const first = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(first.status).toBe(200);
    const other = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: otherPackage });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ status: "error", message: "Idempotency-Key: already used for a different request" });
    expect(await balanceOf(exchangeClient(buyer))).toBeCloseTo(100 - first.body.amount_charged, 6);
  });

  it("charges once for concurrent requests with one key", async () => {
    const { iEsimPackage } = await market();
    const buyer = await exchangeAccount("buyer", 100);
    const client = keyed(buyer, "race-1");
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage })),
    );
    const statuses = replies.map((r) => r.status);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      statuses.join(),
    ).toBe(true);
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((r) => r.body.iccid)).size).toBe(1);
    expect(await esimCount(buyer.iAccount)).toBe(1);
    expect(await balanceOf(exchangeClient(buyer))).toBeCloseTo(100 - 11, 6);
    // Once the first has finished, a retry replays it.
    const again = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(again.body.iccid).toBe(ok[0]!.body.iccid);
  });

  it("keeps keys per account", async () => {
    const { iEsimPackage } = await market();
    const [a, b] = [await exchangeAccount("buyer", 50), await exchangeAccount("buyer", 50)];
    const fromA = await keyed(a, "shared").post("/buyers/esim/purchase", { i_account: a.iAccount, i_esim_package: iEsimPackage });
    const fromB = await keyed(b, "shared").post("/buyers/esim/purchase", { i_account: b.iAccount, i_esim_package: iEsimPackage });
    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    expect(fromB.body.iccid).not.toBe(fromA.body.iccid);
    expect(fromB.headers.get("idempotent-replayed")).toBeNull();
    expect(await balanceOf(exchangeClient(a))).toBeCloseTo(39, 6);
    expect(await balanceOf(exchangeClient(b))).toBeCloseTo(39, 6);
  });

  it("frees the key when the first attempt failed without a charge (402), so it can be retried", async () => {
    const { iEsimPackage } = await market();
    const buyer = await exchangeAccount("buyer", 5);
    const client = keyed(buyer, "poor-1");
    const refused = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(refused.status).toBe(402);
    const again = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(again.status).toBe(402);
    expect(await balanceOf(exchangeClient(buyer))).toBeCloseTo(5, 6);
  });

  it("makes the top-up idempotent too, and a purchase's key cannot be reused for a top-up", async () => {
    const { iEsimPackage, packageTypeId } = await market();
    const buyer = await exchangeAccount("buyer", 100);
    const bought = await keyed(buyer, "p-1").post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    const form = { iccid: bought.body.iccid, package_type_id: packageTypeId, i_account: buyer.iAccount };
    const client = keyed(buyer, "t-1");
    const first = await client.post("/buyers/esim/topup/purchase", form);
    const second = await client.post("/buyers/esim/topup/purchase", form);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toEqual(first.body);
    expect(await balanceOf(exchangeClient(buyer))).toBeCloseTo(100 - 11 - 2.2, 6);
    const reused = await keyed(buyer, "p-1").post("/buyers/esim/topup/purchase", form);
    expect(reused.status).toBe(422);
  });

  it("refuses a malformed key with 400 and runs as before without one", async () => {
    const { iEsimPackage } = await market();
    const buyer = await exchangeAccount("buyer", 100);
    const bad = await exchangeClient(buyer, { headers: { "Idempotency-Key": '"' } }).post("/buyers/esim/purchase", {
      i_account: buyer.iAccount,
      i_esim_package: iEsimPackage,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Idempotency-Key: /);
    const plain = exchangeClient(buyer);
    for (let i = 0; i < 2; i++) {
      expect((await plain.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage })).status).toBe(200);
    }
    expect(await esimCount(buyer.iAccount)).toBe(2);
  });

  it("honours the key on the legacy v1 controller too", async () => {
    const { iEsimPackage } = await market();
    const buyer = await exchangeAccount("buyer", 100);
    const send = async () => {
      // A retry signs afresh (a legacy signature is good once), carrying the same Idempotency-Key.
      const ts = nextLegacyTs(`${buyer.username}/esim_purchase`);
      const signature = await legacySignature("esim_purchase", buyer.apiKey, buyer.username, ts);
      const form = { api_login: buyer.username, ts, signature, webapi: 1, i_account: buyer.iAccount, i_esim_package: iEsimPackage };
      return rawRequest("POST", `${LEGACY_PREFIX}/esim_purchase.php`, form, { "Idempotency-Key": '"v1-1"' });
    };
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toEqual(first.body);
    expect(await esimCount(buyer.iAccount)).toBe(1);
  });

  it("reads the key as the draft's sf-string, or a bare token", () => {
    expect(idempotencyKeyOf('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
    expect(idempotencyKeyOf("abc-123")).toBe("abc-123");
    expect(idempotencyKeyOf('"a \\"b\\""')).toBe('a "b"');
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(() => idempotencyKeyOf('""')).toThrow(/Idempotency-Key/);
    expect(() => idempotencyKeyOf(`"${"x".repeat(256)}"`)).toThrow(/Idempotency-Key/);
  });

  it("forgets keys 24 hours after they were made (cron sweep)", async () => {
    const { iEsimPackage } = await market();
    const buyer = await exchangeAccount("buyer", 100);
    const client = keyed(buyer, "old-1");
    const first = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(first.status).toBe(200);
    const rowsOf = async () =>
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM exchange_idempotency_keys WHERE i_account = ?").bind(buyer.iAccount).first<{
        n: number;
      }>())!.n;
    await sweepExchangeIdempotencyKeys({ db: database(env.DB) }, new Date(Date.now() + 23 * 3600_000));
    expect(await rowsOf()).toBe(1);
    await sweepExchangeIdempotencyKeys({ db: database(env.DB) }, new Date(Date.now() + 24 * 3600_000 + 60_000));
    expect(await rowsOf()).toBe(0);
    const later = await client.post("/buyers/esim/purchase", { i_account: buyer.iAccount, i_esim_package: iEsimPackage });
    expect(later.body.iccid).not.toBe(first.body.iccid);
  });
});
