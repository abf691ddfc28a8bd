// The eSIM market: active packages of active vendors (whose seller account is not suspended),
// filtered as the spec lists, cheapest first.
import { and, asc, count, eq, lte, sql, type SQL } from "drizzle-orm";
import { exchangeAccounts, esimPackages, esimVendors } from "../../../../schema/exchange.ts";
import type { Db } from "../../../lib/db.ts";
import { toUsd } from "../../../lib/money.ts";
import type { ExchangeServices } from "../context.ts";
import { requireCountries } from "./countries.ts";
import type { MarketSearchInput } from "./schemas.ts";

const priceWithFee = sql<number>`(${esimPackages.priceMicros} + ${esimPackages.feeMicros})`;

const marketColumns = {
  iEsimPackage: esimPackages.iEsimPackage,
  name: esimPackages.name,
  countries: esimPackages.countries,
  dataGb: esimPackages.dataGb,
  validityDays: esimPackages.validityDays,
  kind: esimPackages.kind,
  priceMicros: esimPackages.priceMicros,
  feeMicros: esimPackages.feeMicros,
  iVendor: esimVendors.iVendor,
  vendorLogin: esimVendors.login,
  vendorName: esimVendors.name,
};

type MarketRow = { [K in keyof typeof marketColumns]: (typeof marketColumns)[K]["_"]["data"] };

type PackageFields = Pick<typeof esimPackages.$inferSelect, "iEsimPackage" | "name" | "countries" | "dataGb" | "validityDays" | "kind">;

/** What every view of a package starts with, the buyer's and the seller's: the package as published. */
export const packageFields = (p: PackageFields) => ({
  i_esim_package: p.iEsimPackage,
  name: p.name,
  countries: p.countries,
  data_gb: p.dataGb,
  validity_days: p.validityDays,
  kind: p.kind,
});

export const marketPackageView = (p: MarketRow) => ({
  ...packageFields(p),
  price_with_fee: toUsd(p.priceMicros + p.feeMicros),
  i_vendor: p.iVendor,
  esim_vendor: p.vendorLogin,
  vendor_name: p.vendorName,
});

/** Packages joined with their vendor and the vendor's seller account (a seller's i_vendor is its i_account). */
const listed = (db: Db) =>
  db
    .select(marketColumns)
    .from(esimPackages)
    .innerJoin(esimVendors, eq(esimVendors.iVendor, esimPackages.iVendor))
    .innerJoin(exchangeAccounts, eq(exchangeAccounts.iAccount, esimPackages.iVendor));

const counted = (db: Db) =>
  db
    .select({ n: count() })
    .from(esimPackages)
    .innerJoin(esimVendors, eq(esimVendors.iVendor, esimPackages.iVendor))
    .innerJoin(exchangeAccounts, eq(exchangeAccounts.iAccount, esimPackages.iVendor));

const OPEN = [eq(esimPackages.active, true), eq(esimVendors.active, true), eq(exchangeAccounts.status, "active")];

/** A package a buyer may purchase now (active, of an active vendor), or null. */
export async function purchasablePackage(db: Db, iEsimPackage: number): Promise<MarketRow | null> {
  const [row] = await listed(db).where(and(eq(esimPackages.iEsimPackage, iEsimPackage), ...OPEN));
  return row ?? null;
}

export async function searchMarket(s: ExchangeServices, input: MarketSearchInput) {
  const filters: (SQL | undefined)[] = [...OPEN];
  if (input.country !== undefined) {
    const [country] = await requireCountries(s.db, "country", [input.country]);
    filters.push(sql`EXISTS (SELECT 1 FROM json_each(${esimPackages.countries}) WHERE json_each.value = ${country})`);
  }
  if (input.esim_vendor !== undefined) filters.push(eq(esimVendors.login, input.esim_vendor));
  if (input.i_vendor !== undefined) filters.push(eq(esimVendors.iVendor, input.i_vendor));
  if (input.max_price !== undefined) filters.push(lte(priceWithFee, input.max_price));
  if (input.data_GB !== undefined) filters.push(eq(esimPackages.dataGb, input.data_GB));
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    listed(s.db).where(where).orderBy(asc(priceWithFee), asc(esimPackages.iEsimPackage)).limit(input.pager).offset(input.off),
    counted(s.db).where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, packages: rows.map(marketPackageView) };
}
