// Top-ups: the packages whose supported countries cover the eSIM's (offered by the eSIM's own
// vendor), and their purchase: debit, then applied at once in one D1 batch with the order row.
// Data is added now; validity per activation_policy: `immediate` adds the days now (from the
// current expiry, or from now if it has passed); `on_first_use` does the same if the eSIM is in
// use (ENABLED), and otherwise keeps the days pending until its next enable.
import { and, eq, isNull, or, sql } from "drizzle-orm";
import { esimOrders, esimPackages, esimTopupPackages, esims, esimVendors } from "../../../../schema/exchange.ts";
import type { Db } from "../../../lib/db.ts";
import { newId } from "../../../lib/ids.ts";
import { toUsd } from "../../../lib/money.ts";
import { nowIso } from "../../../lib/time.ts";
import { requireOwnAccount } from "../accounts.ts";
import type { ExchangePrincipal, ExchangeServices } from "../context.ts";
import { debit, refund } from "../ledger.ts";
import { conflict, invalidInput, unknown } from "../errors.ts";
import { bytesOfGb, daysLeft, remainingBytes } from "./allowance.ts";
import { datetimeOf } from "../fields.ts";
import { ownEsim, type EsimRow } from "./inventory.ts";
import { insertCompleteOrder } from "./orders.ts";
import type { TopupListInput, TopupPurchaseInput } from "./schemas.ts";

type TopupRow = typeof esimTopupPackages.$inferSelect;

export const topupView = (t: TopupRow) => ({
  package_type_id: t.packageTypeId,
  name: t.name,
  price_with_fee: toUsd(t.priceMicros + t.feeMicros),
  data_GB: t.dataGb,
  validity_days: t.validityDays,
  activation_policy: t.activationPolicy,
  supported_countries: t.supportedCountries,
});

/** The eSIM a top-up is for: the account's own and not deleted. */
async function topupTarget(db: Db, iAccount: number, iccid: string) {
  const esim = await ownEsim(db, iAccount, iccid);
  if (esim.status === "DELETED") throw conflict("iccid", "the eSIM was deleted and cannot be topped up");
  const [pkg] = await db
    .select({ iVendor: esimPackages.iVendor, countries: esimPackages.countries })
    .from(esimPackages)
    .where(eq(esimPackages.iEsimPackage, esim.iEsimPackage));
  return { esim, iVendor: pkg?.iVendor ?? null, countries: pkg?.countries ?? [] };
}

const covers = (supported: string[], needed: string[]) => {
  const set = new Set(supported);
  return needed.every((c) => set.has(c));
};

/** Active top-ups of the eSIM's vendor (or of any vendor) whose countries cover the eSIM's, cheapest first. */
async function compatibleTopups(db: Db, target: { iVendor: number | null; countries: string[] }): Promise<TopupRow[]> {
  const rows = await db
    .select({ topup: esimTopupPackages })
    .from(esimTopupPackages)
    .leftJoin(esimVendors, eq(esimVendors.iVendor, esimTopupPackages.iVendor))
    .where(
      and(
        eq(esimTopupPackages.active, true),
        or(isNull(esimTopupPackages.iVendor), and(eq(esimTopupPackages.iVendor, target.iVendor ?? -1), eq(esimVendors.active, true))),
      ),
    );
  return rows
    .map((r) => r.topup)
    .filter((t) => covers(t.supportedCountries, target.countries))
    .sort((a, b) => a.priceMicros + a.feeMicros - (b.priceMicros + b.feeMicros) || a.packageTypeId - b.packageTypeId);
}

export async function listTopups(s: ExchangeServices, iAccount: number, input: TopupListInput) {
  const target = await topupTarget(s.db, iAccount, input.iccid);
  const packages = await compatibleTopups(s.db, target);
  return { iccid: input.iccid, packages: packages.map(topupView) };
}

/** The UPDATE that applies a top-up to an eSIM, race-free (computed in SQL from the row as it is). */
function applyTopup(db: Db, esim: EsimRow, topup: TopupRow, at: string) {
  const add = bytesOfGb(topup.dataGb);
  const startsNow = topup.activationPolicy === "immediate" ? sql`1` : sql`${esims.status} = 'ENABLED'`;
  const days = `+${topup.validityDays} days`;
  return db
    .update(esims)
    .set({
      dataAllowanceBytes: sql`CASE WHEN ${esims.dataAllowanceBytes} < 0 OR ${add} < 0 THEN -1
        ELSE ${esims.dataAllowanceBytes} + ${add} END`,
      expiresAt: sql`CASE WHEN ${startsNow}
        THEN strftime('%Y-%m-%dT%H:%M:%fZ', max(coalesce(${esims.expiresAt}, ${at}), ${at}), ${days})
        ELSE ${esims.expiresAt} END`,
      pendingValidityDays: sql`CASE WHEN ${startsNow} THEN ${esims.pendingValidityDays}
        ELSE ${esims.pendingValidityDays} + ${topup.validityDays} END`,
      updatedAt: at,
    })
    .where(and(eq(esims.iccid, esim.iccid), eq(esims.iAccount, esim.iAccount), sql`${esims.status} <> 'DELETED'`));
}

export async function purchaseTopup(s: ExchangeServices, principal: ExchangePrincipal, input: TopupPurchaseInput) {
  requireOwnAccount(principal, input.i_account);
  const target = await topupTarget(s.db, input.i_account, input.iccid);
  const [topup] = await s.db
    .select()
    .from(esimTopupPackages)
    .where(and(eq(esimTopupPackages.packageTypeId, input.package_type_id), eq(esimTopupPackages.active, true)));
  if (!topup) throw unknown("package_type_id", "top-up package");
  if (!(await compatibleTopups(s.db, target)).some((t) => t.packageTypeId === topup.packageTypeId)) {
    throw invalidInput("package_type_id", "not a top-up for this eSIM (see /buyers/esim/topup/list)");
  }
  const amount = topup.priceMicros + topup.feeMicros;
  const orderUuid = newId();
  const createTs = nowIso();
  const entryId = `esim-topup:${orderUuid}`;
  const description = `eSIM top-up ${topup.name} for ${input.iccid} (order ${orderUuid})`;
  await debit(s, input.i_account, { entryId, type: "esim_topup", amountMicros: amount, description, createdAt: createTs });

  let applied: boolean;
  let iEsimOrder: number;
  try {
    const [update, [order]] = await s.db.batch([
      applyTopup(s.db, target.esim, topup, createTs),
      insertCompleteOrder(s.db, {
        orderUuid,
        iAccount: input.i_account,
        orderType: "top-up",
        iccid: input.iccid,
        packageTypeId: topup.packageTypeId,
        packageName: topup.name,
        amountChargedMicros: amount,
        createTs,
      }),
    ]);
    applied = update.meta.changes > 0;
    iEsimOrder = order!.iEsimOrder;
  } catch (err) {
    await refund(s, input.i_account, entryId, amount, `eSIM top-up ${orderUuid} not applied`);
    throw err;
  }
  if (!applied) {
    // Deleted between the check and the update: the order is recorded as failed and refunded.
    await refund(s, input.i_account, entryId, amount, `eSIM top-up ${orderUuid} not applied: eSIM deleted`);
    await s.db.update(esimOrders).set({ status: "failed", error: "eSIM deleted" }).where(eq(esimOrders.orderUuid, orderUuid));
    throw conflict("iccid", "the eSIM was deleted and cannot be topped up");
  }
  const esim = await ownEsim(s.db, input.i_account, input.iccid);
  return {
    order_uuid: orderUuid,
    i_esim_order: iEsimOrder,
    iccid: input.iccid,
    package_type_id: topup.packageTypeId,
    package_name: topup.name,
    amount_charged: toUsd(amount),
    create_ts: datetimeOf(createTs),
    data_allowance_bytes: esim.dataAllowanceBytes,
    data_usage_remaining_bytes: remainingBytes(esim.dataAllowanceBytes, esim.dataUsedBytes),
    days_left_to_expiry: daysLeft(esim.expiresAt),
    pending_validity_days: esim.pendingValidityDays,
  };
}
