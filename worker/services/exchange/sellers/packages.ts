// A seller's eSIM packages: publish, update, withdraw, list. The platform fee is fixed at
// publication (and again when the price changes), so a later change of the fee setting does not
// move prices buyers already see.
import { and, count, desc, eq } from "drizzle-orm";
import { esimPackages } from "../../../../schema/exchange.ts";
import { toUsd } from "../../../lib/money.ts";
import { unknown } from "../errors.ts";
import { requireCountries } from "../esim/countries.ts";
import { packageFields } from "../esim/market.ts";
import type { ExchangeServices } from "../context.ts";
import { feeMicros } from "../settings.ts";
import type { ListInput, PackagePublishInput, PackageUpdateInput } from "./schemas.ts";
import { ensureVendor, type Seller } from "./vendors.ts";

type PackageRow = typeof esimPackages.$inferSelect;

export const sellerPackageView = (p: PackageRow) => ({
  ...packageFields(p),
  price: toUsd(p.priceMicros),
  fee: toUsd(p.feeMicros),
  price_with_fee: toUsd(p.priceMicros + p.feeMicros),
  active: p.active ?? false,
});

export async function publishPackage(s: ExchangeServices, seller: Seller, input: PackagePublishInput) {
  const countries = await requireCountries(s.db, "countries", input.countries);
  const iVendor = await ensureVendor(s.db, seller, s.settings.smDpAddress);
  const [row] = await s.db
    .insert(esimPackages)
    .values({
      iVendor,
      name: input.name,
      countries,
      dataGb: input.data_gb,
      validityDays: input.validity_days,
      priceMicros: input.price,
      feeMicros: feeMicros(input.price, s.settings),
      kind: input.kind ?? "universal",
      active: true,
    })
    .returning();
  return sellerPackageView(row!);
}

async function ownPackage(s: ExchangeServices, seller: Seller, iEsimPackage: number): Promise<PackageRow> {
  const [row] = await s.db
    .select()
    .from(esimPackages)
    .where(and(eq(esimPackages.iEsimPackage, iEsimPackage), eq(esimPackages.iVendor, seller.iAccount)));
  if (!row) throw unknown("i_esim_package", "package");
  return row;
}

export async function updatePackage(s: ExchangeServices, seller: Seller, input: PackageUpdateInput) {
  await ownPackage(s, seller, input.i_esim_package);
  const countries = input.countries ? await requireCountries(s.db, "countries", input.countries) : undefined;
  const changes: Partial<typeof esimPackages.$inferInsert> = {
    ...(input.name !== undefined && { name: input.name }),
    ...(countries !== undefined && { countries }),
    ...(input.data_gb !== undefined && { dataGb: input.data_gb }),
    ...(input.validity_days !== undefined && { validityDays: input.validity_days }),
    ...(input.kind !== undefined && { kind: input.kind }),
    ...(input.price !== undefined && { priceMicros: input.price, feeMicros: feeMicros(input.price, s.settings) }),
  };
  if (Object.keys(changes).length > 0) {
    await s.db.update(esimPackages).set(changes).where(eq(esimPackages.iEsimPackage, input.i_esim_package));
  }
  return sellerPackageView(await ownPackage(s, seller, input.i_esim_package));
}

/** Takes the package off the market; eSIMs already sold keep working. Withdrawing twice is fine. */
export async function withdrawPackage(s: ExchangeServices, seller: Seller, iEsimPackage: number) {
  await ownPackage(s, seller, iEsimPackage);
  await s.db.update(esimPackages).set({ active: false }).where(eq(esimPackages.iEsimPackage, iEsimPackage));
  return sellerPackageView(await ownPackage(s, seller, iEsimPackage));
}

/** The seller's packages, withdrawn ones included, newest first. */
export async function listSellerPackages(s: ExchangeServices, seller: Seller, input: ListInput) {
  const where = eq(esimPackages.iVendor, seller.iAccount);
  const [rows, [total]] = await Promise.all([
    s.db.select().from(esimPackages).where(where).orderBy(desc(esimPackages.iEsimPackage)).limit(input.pager).offset(input.off),
    s.db.select({ n: count() }).from(esimPackages).where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, packages: rows.map(sellerPackageView) };
}
