// A seller's top-up packages: publish, update, withdraw, list. Offered for the seller's own eSIMs
// whose countries the top-up's supported_countries cover.
import { and, count, desc, eq } from "drizzle-orm";
import { esimTopupPackages } from "../../../../schema/exchange.ts";
import { toUsd } from "../../../lib/money.ts";
import { unknown } from "../errors.ts";
import { requireCountries } from "../esim/countries.ts";
import type { ExchangeServices } from "../context.ts";
import { feeMicros } from "../settings.ts";
import type { ListInput, TopupPublishInput, TopupUpdateInput } from "./schemas.ts";
import { ensureVendor, type Seller } from "./vendors.ts";

type TopupRow = typeof esimTopupPackages.$inferSelect;

export const sellerTopupView = (t: TopupRow) => ({
  package_type_id: t.packageTypeId,
  name: t.name,
  data_GB: t.dataGb,
  validity_days: t.validityDays,
  activation_policy: t.activationPolicy,
  supported_countries: t.supportedCountries,
  price: toUsd(t.priceMicros),
  fee: toUsd(t.feeMicros),
  price_with_fee: toUsd(t.priceMicros + t.feeMicros),
  active: t.active ?? false,
});

export async function publishTopup(s: ExchangeServices, seller: Seller, input: TopupPublishInput) {
  const countries = await requireCountries(s.db, "supported_countries", input.supported_countries);
  const iVendor = await ensureVendor(s.db, seller, s.settings.smDpAddress);
  const [row] = await s.db
    .insert(esimTopupPackages)
    .values({
      iVendor,
      name: input.name,
      dataGb: input.data_GB,
      validityDays: input.validity_days,
      activationPolicy: input.activation_policy,
      supportedCountries: countries,
      priceMicros: input.price,
      feeMicros: feeMicros(input.price, s.settings),
      active: true,
    })
    .returning();
  return sellerTopupView(row!);
}

async function ownTopup(s: ExchangeServices, seller: Seller, packageTypeId: number): Promise<TopupRow> {
  const [row] = await s.db
    .select()
    .from(esimTopupPackages)
    .where(and(eq(esimTopupPackages.packageTypeId, packageTypeId), eq(esimTopupPackages.iVendor, seller.iAccount)));
  if (!row) throw unknown("package_type_id", "top-up package");
  return row;
}

export async function updateTopup(s: ExchangeServices, seller: Seller, input: TopupUpdateInput) {
  await ownTopup(s, seller, input.package_type_id);
  const countries = input.supported_countries ? await requireCountries(s.db, "supported_countries", input.supported_countries) : undefined;
  const changes: Partial<typeof esimTopupPackages.$inferInsert> = {
    ...(input.name !== undefined && { name: input.name }),
    ...(countries !== undefined && { supportedCountries: countries }),
    ...(input.data_GB !== undefined && { dataGb: input.data_GB }),
    ...(input.validity_days !== undefined && { validityDays: input.validity_days }),
    ...(input.activation_policy !== undefined && { activationPolicy: input.activation_policy }),
    ...(input.price !== undefined && { priceMicros: input.price, feeMicros: feeMicros(input.price, s.settings) }),
  };
  if (Object.keys(changes).length > 0) {
    await s.db.update(esimTopupPackages).set(changes).where(eq(esimTopupPackages.packageTypeId, input.package_type_id));
  }
  return sellerTopupView(await ownTopup(s, seller, input.package_type_id));
}

export async function withdrawTopup(s: ExchangeServices, seller: Seller, packageTypeId: number) {
  await ownTopup(s, seller, packageTypeId);
  await s.db.update(esimTopupPackages).set({ active: false }).where(eq(esimTopupPackages.packageTypeId, packageTypeId));
  return sellerTopupView(await ownTopup(s, seller, packageTypeId));
}

export async function listSellerTopups(s: ExchangeServices, seller: Seller, input: ListInput) {
  const where = eq(esimTopupPackages.iVendor, seller.iAccount);
  const [rows, [total]] = await Promise.all([
    s.db.select().from(esimTopupPackages).where(where).orderBy(desc(esimTopupPackages.packageTypeId)).limit(input.pager).offset(input.off),
    s.db.select({ n: count() }).from(esimTopupPackages).where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, topups: rows.map(sellerTopupView) };
}
