// A seller's eSIM packages: publish, update, withdraw, list. The platform fee is fixed at
// publication (and again when the price changes), so a later change of the fee setting does not
// move prices buyers already see.
import { and, count, desc, eq } from "drizzle-orm";
import { esimPackages } from "../../../schema/exchange.ts";
import { toUsd } from "../../lib/money.ts";
import { unknown } from "../respond.ts";
import { requireCountries } from "../esim/countries.ts";
import { packageFields } from "../esim/market.ts";
import { feeMicros, type CommerceDeps } from "../esim/settings.ts";
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

export async function publishPackage(deps: CommerceDeps, seller: Seller, input: PackagePublishInput) {
  const countries = await requireCountries(deps.db, "countries", input.countries);
  const iVendor = await ensureVendor(deps.db, seller, deps.settings.smDpAddress);
  const [row] = await deps.db
    .insert(esimPackages)
    .values({
      iVendor,
      name: input.name,
      countries,
      dataGb: input.data_gb,
      validityDays: input.validity_days,
      priceMicros: input.price,
      feeMicros: feeMicros(input.price, deps.settings),
      kind: input.kind ?? "universal",
      active: true,
    })
    .returning();
  return sellerPackageView(row!);
}

async function ownPackage(deps: CommerceDeps, seller: Seller, iEsimPackage: number): Promise<PackageRow> {
  const [row] = await deps.db
    .select()
    .from(esimPackages)
    .where(and(eq(esimPackages.iEsimPackage, iEsimPackage), eq(esimPackages.iVendor, seller.iAccount)));
  if (!row) throw unknown("i_esim_package", "package");
  return row;
}

export async function updatePackage(deps: CommerceDeps, seller: Seller, input: PackageUpdateInput) {
  await ownPackage(deps, seller, input.i_esim_package);
  const countries = input.countries ? await requireCountries(deps.db, "countries", input.countries) : undefined;
  const changes: Partial<typeof esimPackages.$inferInsert> = {
    ...(input.name !== undefined && { name: input.name }),
    ...(countries !== undefined && { countries }),
    ...(input.data_gb !== undefined && { dataGb: input.data_gb }),
    ...(input.validity_days !== undefined && { validityDays: input.validity_days }),
    ...(input.kind !== undefined && { kind: input.kind }),
    ...(input.price !== undefined && { priceMicros: input.price, feeMicros: feeMicros(input.price, deps.settings) }),
  };
  if (Object.keys(changes).length > 0) {
    await deps.db.update(esimPackages).set(changes).where(eq(esimPackages.iEsimPackage, input.i_esim_package));
  }
  return sellerPackageView(await ownPackage(deps, seller, input.i_esim_package));
}

/** Takes the package off the market; eSIMs already sold keep working. Withdrawing twice is fine. */
export async function withdrawPackage(deps: CommerceDeps, seller: Seller, iEsimPackage: number) {
  await ownPackage(deps, seller, iEsimPackage);
  await deps.db.update(esimPackages).set({ active: false }).where(eq(esimPackages.iEsimPackage, iEsimPackage));
  return sellerPackageView(await ownPackage(deps, seller, iEsimPackage));
}

/** The seller's packages, withdrawn ones included, newest first. */
export async function listSellerPackages(deps: CommerceDeps, seller: Seller, input: ListInput) {
  const where = eq(esimPackages.iVendor, seller.iAccount);
  const [rows, [total]] = await Promise.all([
    deps.db.select().from(esimPackages).where(where).orderBy(desc(esimPackages.iEsimPackage)).limit(input.pager).offset(input.off),
    deps.db.select({ n: count() }).from(esimPackages).where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, packages: rows.map(sellerPackageView) };
}
