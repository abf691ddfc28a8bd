// A seller's vendor record: the market shows packages by vendor (esim_vendor = login,
// i_vendor = id). A seller's i_vendor IS its i_account, and its login its username, so the
// row is created on the seller's first publication.
import { and, eq } from "drizzle-orm";
import { esimVendors } from "../../../../schema/exchange.ts";
import type { Db } from "../../../lib/db.ts";
import { conflict } from "../errors.ts";

export type Seller = { iAccount: number; username: string };

export async function ensureVendor(db: Db, seller: Seller, smDpAddress: string): Promise<number> {
  await db
    .insert(esimVendors)
    .values({ iVendor: seller.iAccount, login: seller.username, name: seller.username, smDpAddress, active: true })
    .onConflictDoNothing();
  const [row] = await db
    .select({ iVendor: esimVendors.iVendor })
    .from(esimVendors)
    .where(and(eq(esimVendors.iVendor, seller.iAccount), eq(esimVendors.login, seller.username)));
  if (!row) throw conflict("username", "another vendor already uses this login");
  return row.iVendor;
}
