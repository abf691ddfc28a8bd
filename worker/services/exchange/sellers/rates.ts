// A seller's voice (per minute) and SMS (per message) rates by destination prefix. Publishing a
// (service, prefix) the seller already has replaces its price: a rate deck is re-sent whole.
import { and, count, desc, eq } from "drizzle-orm";
import { exchangeMarketRates } from "../../../../schema/exchange.ts";
import { toUsd } from "../../../lib/money.ts";
import { nowIso } from "../../../lib/time.ts";
import { unknown } from "../errors.ts";
import { requireCountries } from "../esim/countries.ts";
import { datetimeOf } from "../fields.ts";
import type { ExchangeServices } from "../context.ts";
import { feeMicros } from "../settings.ts";
import { rateFields } from "../market/search.ts";
import type { ListInput, RatePublishInput, RateUpdateInput } from "./schemas.ts";
import { ensureVendor, type Seller } from "./vendors.ts";

type RateRow = typeof exchangeMarketRates.$inferSelect;

export const sellerRateView = (r: RateRow) => ({
  ...rateFields(r),
  price: toUsd(r.priceMicros),
  fee: toUsd(r.feeMicros),
  price_with_fee: toUsd(r.priceMicros + r.feeMicros),
  active: r.active ?? false,
  updated_at: datetimeOf(r.updatedAt),
});

export async function publishRate(s: ExchangeServices, seller: Seller, input: RatePublishInput) {
  const [country] = await requireCountries(s.db, "country", [input.country]);
  const iVendor = await ensureVendor(s.db, seller, s.settings.smDpAddress);
  const at = nowIso();
  const price = { priceMicros: input.price, feeMicros: feeMicros(input.price, s.settings) };
  const [row] = await s.db
    .insert(exchangeMarketRates)
    .values({
      iVendor,
      service: input.service,
      country: country!,
      prefix: input.prefix,
      description: input.description ?? null,
      ...price,
      active: true,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoUpdate({
      target: [exchangeMarketRates.iVendor, exchangeMarketRates.service, exchangeMarketRates.prefix],
      set: { country: country!, description: input.description ?? null, ...price, active: true, updatedAt: at },
    })
    .returning();
  return sellerRateView(row!);
}

async function ownRate(s: ExchangeServices, seller: Seller, iRate: number): Promise<RateRow> {
  const [row] = await s.db
    .select()
    .from(exchangeMarketRates)
    .where(and(eq(exchangeMarketRates.iRate, iRate), eq(exchangeMarketRates.iVendor, seller.iAccount)));
  if (!row) throw unknown("i_rate", "rate");
  return row;
}

export async function updateRate(s: ExchangeServices, seller: Seller, input: RateUpdateInput) {
  await ownRate(s, seller, input.i_rate);
  const country = input.country ? (await requireCountries(s.db, "country", [input.country]))[0] : undefined;
  const changes: Partial<typeof exchangeMarketRates.$inferInsert> = {
    ...(country !== undefined && { country }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.price !== undefined && { priceMicros: input.price, feeMicros: feeMicros(input.price, s.settings) }),
  };
  if (Object.keys(changes).length > 0) {
    await s.db
      .update(exchangeMarketRates)
      .set({ ...changes, updatedAt: nowIso() })
      .where(eq(exchangeMarketRates.iRate, input.i_rate));
  }
  return sellerRateView(await ownRate(s, seller, input.i_rate));
}

export async function withdrawRate(s: ExchangeServices, seller: Seller, iRate: number) {
  const row = await ownRate(s, seller, iRate);
  if (row.active) {
    await s.db.update(exchangeMarketRates).set({ active: false, updatedAt: nowIso() }).where(eq(exchangeMarketRates.iRate, iRate));
  }
  return sellerRateView(await ownRate(s, seller, iRate));
}

export async function listSellerRates(s: ExchangeServices, seller: Seller, input: ListInput) {
  const where = eq(exchangeMarketRates.iVendor, seller.iAccount);
  const [rows, [total]] = await Promise.all([
    s.db.select().from(exchangeMarketRates).where(where).orderBy(desc(exchangeMarketRates.iRate)).limit(input.pager).offset(input.off),
    s.db.select({ n: count() }).from(exchangeMarketRates).where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, rates: rows.map(sellerRateView) };
}
