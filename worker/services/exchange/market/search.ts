// Voice (per minute) and SMS (per message) market rates published by sellers, by service,
// country, prefix (rates whose prefix starts with the digits given), price and vendor; ordered by
// country, prefix, then cheapest. Rates of suspended seller accounts are not shown.
import { and, asc, count, eq, like, lte, sql, type SQL } from "drizzle-orm";
import { exchangeAccounts, exchangeMarketRates } from "../../../../schema/exchange.ts";
import { toUsd } from "../../../lib/money.ts";
import { requireCountries } from "../esim/countries.ts";
import { datetimeOf } from "../fields.ts";
import type { ExchangeServices } from "../context.ts";
import type { MarketviewSearchInput } from "./schemas.ts";

/** The most rows one CSV rate deck carries. */
export const RATE_DECK_MAX_ROWS = 100_000;

const priceWithFee = sql<number>`(${exchangeMarketRates.priceMicros} + ${exchangeMarketRates.feeMicros})`;

const columns = {
  iRate: exchangeMarketRates.iRate,
  service: exchangeMarketRates.service,
  country: exchangeMarketRates.country,
  prefix: exchangeMarketRates.prefix,
  description: exchangeMarketRates.description,
  priceWithFeeMicros: priceWithFee,
  iVendor: exchangeMarketRates.iVendor,
  vendor: exchangeAccounts.username,
  updatedAt: exchangeMarketRates.updatedAt,
};

export type MarketRate = {
  i_rate: number;
  service: string;
  unit: "minute" | "message";
  country: string;
  prefix: string;
  description: string | null;
  price_with_fee: number;
  currency: "USD";
  i_vendor: number;
  vendor: string;
  updated_at: string;
};

async function filtersOf(s: ExchangeServices, input: MarketviewSearchInput): Promise<SQL | undefined> {
  const filters: (SQL | undefined)[] = [eq(exchangeMarketRates.active, true), eq(exchangeAccounts.status, "active")];
  if (input.service) filters.push(eq(exchangeMarketRates.service, input.service));
  if (input.country) filters.push(eq(exchangeMarketRates.country, (await requireCountries(s.db, "country", [input.country]))[0]!));
  if (input.prefix) filters.push(like(exchangeMarketRates.prefix, `${input.prefix}%`));
  if (input.max_price !== undefined) filters.push(lte(priceWithFee, input.max_price));
  if (input.i_vendor !== undefined) filters.push(eq(exchangeMarketRates.iVendor, input.i_vendor));
  if (input.vendor) filters.push(eq(exchangeAccounts.username, input.vendor));
  return and(...filters);
}

type RateRow = {
  iRate: number;
  service: string;
  country: string;
  prefix: string;
  description: string | null;
  priceWithFeeMicros: number;
  iVendor: number;
  vendor: string;
  updatedAt: string;
};

type RateFields = Pick<RateRow, "iRate" | "service" | "country" | "prefix" | "description">;

/** What every view of a rate starts with, the buyer's and the seller's: the rate as published, and its unit. */
export const rateFields = (r: RateFields) => ({
  i_rate: r.iRate,
  service: r.service,
  unit: r.service === "voice" ? ("minute" as const) : ("message" as const),
  country: r.country,
  prefix: r.prefix,
  description: r.description,
});

const view = (r: RateRow): MarketRate => ({
  ...rateFields(r),
  price_with_fee: toUsd(r.priceWithFeeMicros),
  currency: "USD",
  i_vendor: r.iVendor,
  vendor: r.vendor,
  updated_at: datetimeOf(r.updatedAt),
});

function query(s: ExchangeServices, where: SQL | undefined) {
  return s.db
    .select(columns)
    .from(exchangeMarketRates)
    .innerJoin(exchangeAccounts, eq(exchangeAccounts.iAccount, exchangeMarketRates.iVendor))
    .where(where)
    .orderBy(asc(exchangeMarketRates.country), asc(exchangeMarketRates.prefix), asc(priceWithFee), asc(exchangeMarketRates.iRate));
}

export async function searchRates(s: ExchangeServices, input: MarketviewSearchInput) {
  const where = await filtersOf(s, input);
  const [rows, [total]] = await Promise.all([
    query(s, where).limit(input.pager).offset(input.off),
    s.db
      .select({ n: count() })
      .from(exchangeMarketRates)
      .innerJoin(exchangeAccounts, eq(exchangeAccounts.iAccount, exchangeMarketRates.iVendor))
      .where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, rates: rows.map(view) };
}

/** Every rate matching the filters (pager and off do not apply), up to RATE_DECK_MAX_ROWS. */
export async function rateDeck(s: ExchangeServices, input: MarketviewSearchInput): Promise<MarketRate[]> {
  return (await query(s, await filtersOf(s, input)).limit(RATE_DECK_MAX_ROWS)).map(view);
}
