// The eSIM lifecycle driven by SM-DP+ notifications (RELEASED → DOWNLOADED → INSTALLED → ENABLED,
// DISABLED, DELETED): transitions, refused ones, usage reports, the notification log, and the
// endpoint's HMAC authentication.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listEsims } from "../../../worker/services/exchange/esim/inventory.ts";
import { handleNotification, type Notification } from "../../../worker/services/exchange/esim/lifecycle.ts";
import { notifySecret, signNotification } from "../../../worker/exchange/esim/notify-auth.ts";
import { purchaseEsim } from "../../../worker/services/exchange/esim/purchase.ts";
import { purchaseTopup } from "../../../worker/services/exchange/esim/topups.ts";
import { account, deps, expectFailure, publish, publishTopupPackage } from "../fixtures/exchange-esim.ts";

const GB = 1024 ** 3;
const EID = "89049032000001000000000000000001";

async function bought(dataGb = 1) {
  const seller = await account("seller");
  const pkg = await publish(seller, { price: "1", data_gb: dataGb, validity_days: 10 });
  const buyer = await account("buyer", 50);
  const esim = await purchaseEsim(deps(), buyer, { i_account: buyer.iAccount, i_esim_package: pkg.i_esim_package });
  return { seller, buyer, iccid: esim.iccid };
}

const notify = (n: Notification) => handleNotification(deps(), n);
const stateOf = async (iAccount: number, iccid: string) => (await listEsims(deps(), iAccount, { iccid, pager: 1, off: 0 })).esims[0]!;
const logOf = (iccid: string) =>
  env.DB.prepare("SELECT operation, seq_number, processed_at, error FROM esim_notifications WHERE iccid = ? ORDER BY id").bind(iccid).all<{
    operation: string;
    seq_number: number | null;
    processed_at: string | null;
    error: string | null;
  }>();

describe("transitions", () => {
  it("follows download, install, enable, disable, enable, delete", async () => {
    const { buyer, iccid } = await bought();
    const path: [Notification["operation"], string][] = [
      ["download", "DOWNLOADED"],
      ["install", "INSTALLED"],
      ["enable", "ENABLED"],
      ["disable", "DISABLED"],
      ["enable", "ENABLED"],
      ["delete", "DELETED"],
    ];
    for (const [operation, status] of path) {
      expect(await notify({ iccid, operation, eid: EID })).toEqual({ iccid, esim_status: status, changed: true, duplicate: false });
      expect((await stateOf(buyer.iAccount, iccid)).esim_status).toBe(status);
    }
    expect((await stateOf(buyer.iAccount, iccid)).esim_status_message).toMatch(/deleted/i);
    const log = await logOf(iccid);
    expect(log.results.map((r) => r.operation)).toEqual(path.map(([op]) => op));
    expect(log.results.every((r) => r.processed_at && !r.error)).toBe(true);
  });

  it("refuses impossible transitions, logs them, and leaves the state alone", async () => {
    const { buyer, iccid } = await bought();
    await expectFailure(notify({ iccid, operation: "enable" }), 409, "operation", /cannot enable an eSIM that is RELEASED/);
    await expectFailure(notify({ iccid, operation: "install" }), 409, "operation");
    await expectFailure(notify({ iccid, operation: "delete" }), 409, "operation");
    expect((await stateOf(buyer.iAccount, iccid)).esim_status).toBe("RELEASED");
    await notify({ iccid, operation: "download" });
    await expectFailure(notify({ iccid, operation: "disable" }), 409, "operation", /DOWNLOADED/);
    await notify({ iccid, operation: "install" });
    await notify({ iccid, operation: "delete" });
    for (const operation of ["download", "install", "enable", "disable"] as const) {
      await expectFailure(notify({ iccid, operation }), 409, "operation", /DELETED/);
    }
    const log = await logOf(iccid);
    expect(log.results.filter((r) => r.error).map((r) => r.operation)).toEqual([
      "enable",
      "install",
      "delete",
      "disable",
      "download",
      "install",
      "enable",
      "disable",
    ]);
  });

  it("answers unknown ICCID for an eSIM never issued", async () => {
    await expectFailure(notify({ iccid: "8944990000000000000", operation: "download" }), 404, "iccid", /unknown ICCID/);
  });

  it("acknowledges a repeated notification (same state, or same seq_number) without effect", async () => {
    const { iccid } = await bought();
    expect(await notify({ iccid, operation: "download", seq_number: 7 })).toMatchObject({ changed: true, duplicate: false });
    expect(await notify({ iccid, operation: "download", seq_number: 7 })).toMatchObject({
      esim_status: "DOWNLOADED",
      changed: false,
      duplicate: true,
    });
    expect(await notify({ iccid, operation: "download" })).toMatchObject({ esim_status: "DOWNLOADED", changed: false, duplicate: false });
  });

  it("takes concurrent notifications one at a time: one download wins", async () => {
    const { iccid } = await bought();
    const results = await Promise.all(Array.from({ length: 10 }, () => notify({ iccid, operation: "download" })));
    expect(results.filter((r) => r.changed)).toHaveLength(1);
  });
});

describe("usage", () => {
  it("records cumulative data use, ignoring a late lower counter", async () => {
    const { buyer, iccid } = await bought(1);
    await notify({ iccid, operation: "download" });
    await notify({ iccid, operation: "install" });
    await notify({ iccid, operation: "enable", data_used_bytes: 1000 });
    await notify({ iccid, operation: "usage", data_used_bytes: GB / 4 });
    await notify({ iccid, operation: "usage", data_used_bytes: 500 });
    expect(await stateOf(buyer.iAccount, iccid)).toMatchObject({
      esim_status: "ENABLED",
      data_used_bytes: GB / 4,
      data_allowance_bytes: GB,
      data_usage_remaining_bytes: (3 * GB) / 4,
    });
    await notify({ iccid, operation: "usage", data_used_bytes: 2 * GB });
    const used = await stateOf(buyer.iAccount, iccid);
    expect(used.data_usage_remaining_bytes).toBe(0);
    expect(used.esim_status_message).toMatch(/used up/);
  });

  it("starts on_first_use top-up validity at the next enable", async () => {
    const { seller, buyer, iccid } = await bought();
    const topup = await publishTopupPackage(seller, { activation_policy: "on_first_use", validity_days: 20 });
    await purchaseTopup(deps(), buyer, { i_account: buyer.iAccount, iccid, package_type_id: topup.package_type_id });
    expect(await stateOf(buyer.iAccount, iccid)).toMatchObject({ days_left_to_expiry: 10, pending_validity_days: 20 });
    for (const operation of ["download", "install", "enable"] as const) await notify({ iccid, operation });
    expect(await stateOf(buyer.iAccount, iccid)).toMatchObject({ days_left_to_expiry: 30, pending_validity_days: 0 });
    // In use now: a further on_first_use top-up starts at once.
    await purchaseTopup(deps(), buyer, { i_account: buyer.iAccount, iccid, package_type_id: topup.package_type_id });
    expect(await stateOf(buyer.iAccount, iccid)).toMatchObject({ days_left_to_expiry: 50, pending_validity_days: 0 });
  });

  it("refuses top-ups of a deleted eSIM", async () => {
    const { seller, buyer, iccid } = await bought();
    const topup = await publishTopupPackage(seller);
    for (const operation of ["download", "install", "delete"] as const) await notify({ iccid, operation });
    await expectFailure(
      purchaseTopup(deps(), buyer, { i_account: buyer.iAccount, iccid, package_type_id: topup.package_type_id }),
      409,
      "iccid",
      /deleted/,
    );
  });
});

describe("the notification endpoint", () => {
  const url = "https://exchange.test/exchange/smdp/notifications";

  async function post(body: string, sign: { secret?: string; ts?: number; signature?: string } = {}) {
    const ts = sign.ts ?? Math.floor(Date.now() / 1000);
    const signature = sign.signature ?? (await signNotification(sign.secret ?? (await notifySecret(deps())), ts, body));
    const res = await exports.default.fetch(
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-smdp-timestamp": String(ts), "x-smdp-signature": signature },
        body,
      }),
    );
    return { status: res.status, body: (await res.json()) as any };
  }

  it("moves the eSIM on a correctly signed notification", async () => {
    const { buyer, iccid } = await bought();
    const res = await post(JSON.stringify({ iccid, operation: "download", eid: EID, seq_number: 1 }));
    expect(res).toEqual({ status: 200, body: { status: "success", iccid, esim_status: "DOWNLOADED", changed: true, duplicate: false } });
    expect((await stateOf(buyer.iAccount, iccid)).esim_status).toBe("DOWNLOADED");
  });

  it("refuses a wrong signature, another secret, a stale timestamp, and unsigned requests", async () => {
    const { buyer, iccid } = await bought();
    const body = JSON.stringify({ iccid, operation: "download" });
    expect(await post(body, { signature: "sha256=" + "0".repeat(64) })).toMatchObject({ status: 401, body: { status: "error" } });
    expect(await post(body, { secret: "x".repeat(40) })).toMatchObject({ status: 401 });
    expect(await post(body, { ts: Math.floor(Date.now() / 1000) - 3600 })).toMatchObject({ status: 401, body: { message: /timestamp/i } });
    const unsigned = await exports.default.fetch(
      new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body }),
    );
    expect(unsigned.status).toBe(401);
    // The signature covers the body: a changed body with the old signature is refused.
    const ts = Math.floor(Date.now() / 1000);
    const signature = await signNotification(await notifySecret(deps()), ts, body);
    expect(await post(body.replace("download", "delete"), { ts, signature })).toMatchObject({ status: 401 });
    expect((await stateOf(buyer.iAccount, iccid)).esim_status).toBe("RELEASED");
  });

  it("names the field of a bad notification, and answers 409 for an impossible transition", async () => {
    const { iccid } = await bought();
    expect(await post(JSON.stringify({ iccid, operation: "explode" }))).toMatchObject({
      status: 400,
      body: { status: "error", message: /^operation: / },
    });
    expect(await post(JSON.stringify({ iccid: "12", operation: "download" }))).toMatchObject({
      status: 400,
      body: { message: /^iccid: / },
    });
    expect(await post(JSON.stringify({ iccid, operation: "usage", data_used_bytes: -1 }))).toMatchObject({
      status: 400,
      body: { message: /^data_used_bytes: / },
    });
    expect(await post("not json")).toMatchObject({ status: 400, body: { message: /^body: / } });
    expect(await post(JSON.stringify({ iccid, operation: "enable" }))).toMatchObject({
      status: 409,
      body: { status: "error", message: /^operation: cannot enable/ },
    });
  });
});
