// Fixtures of the eSIM, IoT, market and seller tests: exchange accounts made by the accounts
// service, packages published by the sellers' services, and a QR reader (jsqr over a PNG decoded
// by upng-js) to check every qr_base64 against its LPA string.
import { env } from "cloudflare:test";
import jsQR from "jsqr";
import UPNG from "upng-js";
import { expect } from "vitest";
import { createExchangeAccount } from "../../worker/exchange/accounts.ts";
import type { ExchangePrincipal } from "../../worker/exchange/context.ts";
import { commerceDeps } from "../../worker/exchange/esim/settings.ts";
import { balanceMicros as ledgerBalance } from "../../worker/exchange/ledger.ts";
import { publishPackage, type sellerPackageView } from "../../worker/exchange/sellers/packages.ts";
import type { PackagePublishInput, TopupPublishInput } from "../../worker/exchange/sellers/schemas.ts";
import { publishTopup } from "../../worker/exchange/sellers/topups.ts";
import { toMicros } from "../../worker/lib/money.ts";

export const deps = () => commerceDeps(env);

let counter = 0;

export type TestAccount = ExchangePrincipal & { apiKey: string };

/** A new exchange account (service level), with an opening balance in USD. */
export async function account(role: "buyer" | "seller", balanceUsd: number | string = 0): Promise<TestAccount> {
  const created = await createExchangeAccount(deps(), {
    role,
    balanceUsd,
    username: `${role}-svc-${Date.now().toString(36)}-${++counter}`,
  });
  return { iAccount: created.iAccount, username: created.username, role, accountRole: role, apiKey: created.apiKey };
}

export const balanceMicros = (iAccount: number) => ledgerBalance(deps(), iAccount);

type PackageView = ReturnType<typeof sellerPackageView>;

/** A package published by the seller; price in USD text, countries as names. */
type Overrides<T> = Partial<Omit<T, "price">> & { price?: string };

export async function publish(seller: TestAccount, overrides: Overrides<PackagePublishInput> = {}): Promise<PackageView> {
  const { price = "10", ...rest } = overrides;
  return publishPackage(deps(), seller, {
    name: `Pack ${++counter}`,
    countries: ["FRANCE"],
    data_gb: 5,
    validity_days: 30,
    kind: "universal",
    ...rest,
    price: toMicros(price),
  });
}

export async function publishTopupPackage(seller: TestAccount, overrides: Overrides<TopupPublishInput> = {}) {
  const { price = "5", ...rest } = overrides;
  return publishTopup(deps(), seller, {
    name: `Top-up ${++counter}`,
    supported_countries: ["FRANCE"],
    data_GB: 1,
    validity_days: 7,
    activation_policy: "immediate",
    ...rest,
    price: toMicros(price),
  });
}

/** The text of the QR code in a base64 PNG; fails the test when it is no PNG or holds no readable code. */
export function readQr(qrBase64: string): string {
  const bytes = Uint8Array.from(atob(qrBase64), (ch) => ch.charCodeAt(0));
  expect([...bytes.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  const image = UPNG.decode(bytes.buffer);
  const rgba = new Uint8ClampedArray(UPNG.toRGBA8(image)[0]!);
  const code = jsQR(rgba, image.width, image.height);
  expect(code, "no QR code found in the PNG").not.toBeNull();
  return code!.data;
}

/** Expects an ExchangeError with this status whose message starts with the field's name. */
export async function expectFailure(promise: Promise<unknown>, status: number, field: string, message?: RegExp) {
  const err = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as { status?: number; message?: string } | null;
  expect(err, `expected a ${status} naming ${field}`).not.toBeNull();
  expect({ status: err!.status, field: err!.message?.split(":")[0] }).toEqual({ status, field });
  if (message) expect(err!.message).toMatch(message);
}

/** Counts rows of a table for an account (nothing stored checks). */
export async function rows(table: "esims" | "esim_orders" | "iot_events", iAccount: number): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE i_account = ?`).bind(iAccount).first<{ n: number }>();
  return row!.n;
}
