// IoT devices: each belongs to an account and is bound to one of its eSIMs. Registering a device
// issues its ingestion token, shown once and stored as a SHA-256 hash (a token has 256 bits of
// entropy, so a slow hash adds nothing); registering the same device again rotates the token
// (and may rebind it to another eSIM of the account).
import { and, count, desc, eq } from "drizzle-orm";
import { iotDevices } from "../../../../schema/exchange.ts";
import { randomToken, sha256Hex } from "../../../lib/crypto.ts";
import { nowIso } from "../../../lib/time.ts";
import { datetimeOf } from "../fields.ts";
import { ownEsim } from "../esim/inventory.ts";
import type { ExchangeServices } from "../context.ts";
import { conflict, unknown } from "../errors.ts";
import type { DeviceListInput, DeviceRegisterInput } from "./schemas.ts";

export const newDeviceToken = () => `iot_${randomToken(32)}`;

type DeviceRow = typeof iotDevices.$inferSelect;

const deviceView = (d: DeviceRow) => ({ device: d.device, iccid: d.iccid, label: d.label, created_at: datetimeOf(d.createdAt) });

export async function registerDevice(s: ExchangeServices, iAccount: number, input: DeviceRegisterInput) {
  const esim = await ownEsim(s.db, iAccount, input.iccid);
  if (esim.status === "DELETED") throw conflict("iccid", "the eSIM was deleted");
  const token = newDeviceToken();
  const tokenHash = await sha256Hex(token);
  const [row] = await s.db
    .insert(iotDevices)
    .values({ iAccount, device: input.device, iccid: input.iccid, label: input.label ?? null, tokenHash, createdAt: nowIso() })
    .onConflictDoUpdate({
      target: [iotDevices.iAccount, iotDevices.device],
      set: { iccid: input.iccid, tokenHash, ...(input.label !== undefined && { label: input.label }) },
    })
    .returning();
  return { ...deviceView(row!), token };
}

export async function listDevices(s: ExchangeServices, iAccount: number, input: DeviceListInput) {
  const where = eq(iotDevices.iAccount, iAccount);
  const [rows, [total]] = await Promise.all([
    s.db.select().from(iotDevices).where(where).orderBy(desc(iotDevices.id)).limit(input.pager).offset(input.off),
    s.db.select({ n: count() }).from(iotDevices).where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, devices: rows.map(deviceView) };
}

/** Removes the device and so its token; its events stay in the history. */
export async function deleteDevice(s: ExchangeServices, iAccount: number, device: string) {
  const deleted = await s.db
    .delete(iotDevices)
    .where(and(eq(iotDevices.iAccount, iAccount), eq(iotDevices.device, device)))
    .returning({ id: iotDevices.id });
  if (deleted.length === 0) throw unknown("device", "device");
  return { device };
}

/** The device a bearer token belongs to, or null. */
export async function deviceByToken(s: Pick<ExchangeServices, "db">, token: string): Promise<DeviceRow | null> {
  if (!/^iot_[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [row] = await s.db
    .select()
    .from(iotDevices)
    .where(eq(iotDevices.tokenHash, await sha256Hex(token)));
  return row ?? null;
}
