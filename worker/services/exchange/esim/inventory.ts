// The buyer's eSIMs with their usage figures. Another account's eSIM is invisible: every query
// takes the account, so its ICCID answers "unknown ICCID" exactly like one never issued.
import { and, count, desc, eq, type SQL } from "drizzle-orm";
import { esimOrders, esimPackages, esims } from "../../../../schema/exchange.ts";
import type { Db } from "../../../lib/db.ts";
import { toUsd } from "../../../lib/money.ts";
import { unknown } from "../errors.ts";
import { daysLeft, remainingBytes } from "./allowance.ts";
import { datetimeOf } from "../fields.ts";
import { qrPngBase64 } from "./qr.ts";
import type { InventoryListInput } from "./schemas.ts";
import type { ExchangeServices } from "../context.ts";

export type EsimRow = typeof esims.$inferSelect;

const STATUS_MESSAGES: Record<string, string> = {
  RELEASED: "Ready to install: scan the QR code, or enter the SM-DP+ address and activation code",
  DOWNLOADED: "Profile downloaded to the device, not yet installed",
  INSTALLED: "Profile installed on the device, not yet enabled",
  ENABLED: "Active: the profile is enabled on the device",
  DISABLED: "Profile disabled on the device",
  DELETED: "Profile deleted from the device; it cannot be installed again",
};

export function statusMessage(
  esim: Pick<EsimRow, "status" | "statusMessage" | "expiresAt" | "dataAllowanceBytes" | "dataUsedBytes">,
  now = Date.now(),
): string {
  const parts = [esim.statusMessage ?? STATUS_MESSAGES[esim.status] ?? esim.status];
  if (esim.status !== "DELETED") {
    if (esim.expiresAt && Date.parse(esim.expiresAt) <= now) parts.push("validity expired");
    else if (remainingBytes(esim.dataAllowanceBytes, esim.dataUsedBytes) === 0) parts.push("data allowance used up");
  }
  return parts.join("; ");
}

const columns = {
  esim: esims,
  packageName: esimPackages.name,
  countries: esimPackages.countries,
  iEsimOrder: esimOrders.iEsimOrder,
  orderUuid: esimOrders.orderUuid,
  amountChargedMicros: esimOrders.amountChargedMicros,
};

type InventoryRow = {
  esim: EsimRow;
  packageName: string | null;
  countries: string[] | null;
  iEsimOrder: number | null;
  orderUuid: string | null;
  amountChargedMicros: number | null;
};

export const inventoryView = (row: InventoryRow, now = Date.now()) => {
  const e = row.esim;
  return {
    iccid: e.iccid,
    esim_status: e.status,
    esim_status_message: statusMessage(e, now),
    data_usage_remaining_bytes: remainingBytes(e.dataAllowanceBytes, e.dataUsedBytes),
    data_allowance_bytes: e.dataAllowanceBytes,
    data_used_bytes: e.dataUsedBytes,
    days_left_to_expiry: daysLeft(e.expiresAt, now),
    expires_at: e.expiresAt ? datetimeOf(e.expiresAt) : null,
    pending_validity_days: e.pendingValidityDays,
    lpa: e.lpa,
    qr_base64: qrPngBase64(e.lpa),
    sm_dp_address: e.smDpAddress,
    activation_code: e.activationCode,
    i_esim_package: e.iEsimPackage,
    package_name: row.packageName,
    countries: row.countries ?? [],
    i_esim_order: row.iEsimOrder,
    order_uuid: row.orderUuid,
    amount_charged: toUsd(row.amountChargedMicros ?? 0),
    create_ts: datetimeOf(e.createdAt),
  };
};

function inventoryQuery(db: Db, where: SQL | undefined) {
  return db
    .select(columns)
    .from(esims)
    .leftJoin(esimPackages, eq(esimPackages.iEsimPackage, esims.iEsimPackage))
    .leftJoin(esimOrders, and(eq(esimOrders.iccid, esims.iccid), eq(esimOrders.orderType, "purchase")))
    .where(where);
}

export async function listEsims(s: ExchangeServices, iAccount: number, input: InventoryListInput) {
  const where = and(eq(esims.iAccount, iAccount), input.iccid !== undefined ? eq(esims.iccid, input.iccid) : undefined);
  const [rows, [total]] = await Promise.all([
    inventoryQuery(s.db, where).orderBy(desc(esims.createdAt), desc(esims.iccid)).limit(input.pager).offset(input.off),
    s.db.select({ n: count() }).from(esims).where(where),
  ]);
  const now = Date.now();
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, esims: rows.map((r) => inventoryView(r, now)) };
}

/** The account's eSIM, or 404 "<field>: unknown ICCID" (also for another account's). */
export async function ownEsim(db: Db, iAccount: number, iccid: string, field = "iccid"): Promise<EsimRow> {
  const [row] = await db
    .select()
    .from(esims)
    .where(and(eq(esims.iccid, iccid), eq(esims.iAccount, iAccount)));
  if (!row) throw unknown(field, "ICCID");
  return row;
}
