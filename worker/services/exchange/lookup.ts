// What the platform knows about a number prefix (legacy v1 `lookup`, worker/exchange/lookup.ts):
//   - the E.164 country calling code it falls under and the countries it can belong to (narrowed
//     by national leading digits where countries share a code, e.g. +1 876 is Jamaica), named as
//     the eSIM countries list names them;
//   - the market: the longest published rate prefix the number starts with, and the rates offered
//     for it by sellers, cheapest first (price_with_fee, USD).
// `type` is the route type of the question: CLI and NCLI (voice, with or without caller ID; the
// market does not yet tell them apart) look up voice rates, SMS looks up SMS rates. Default CLI.
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { esimCountries, exchangeAccounts, exchangeMarketRates } from "../../../schema/exchange.ts";
import { toUsd } from "../../lib/money.ts";
import { CALLING_CODES } from "./calling-codes.ts";
import type { ExchangeServices } from "./context.ts";

export const LOOKUP_TYPES = ["CLI", "NCLI", "SMS"] as const;
export type LookupType = (typeof LOOKUP_TYPES)[number];

/** The calling code a number starts with and the countries (ISO alpha-2) it may belong to; null when no code matches. */
export function callingCodeOf(digits: string): { callingCode: string; iso2: string[] } | null {
  for (let len = Math.min(3, digits.length); len >= 1; len--) {
    const code = digits.slice(0, len);
    const entries = CALLING_CODES[code];
    if (!entries) continue;
    const national = digits.slice(len);
    const all = entries.map(([iso2]) => iso2);
    if (national === "") return { callingCode: code, iso2: all };
    const byLeading = entries.filter(([, leading]) => leading && new RegExp(`^(?:${leading})`).test(national)).map(([iso2]) => iso2);
    if (byLeading.length > 0) return { callingCode: code, iso2: byLeading };
    // Too few digits to rule out a country identified by longer leading digits: all remain possible.
    if (national.length < 3) return { callingCode: code, iso2: all };
    const plain = entries.filter(([, leading]) => !leading).map(([iso2]) => iso2);
    return { callingCode: code, iso2: plain.length ? plain : all };
  }
  return null;
}

export async function lookupPrefix(s: Pick<ExchangeServices, "db">, digits: string, type: LookupType) {
  const db = s.db;
  const code = callingCodeOf(digits);
  const names = code
    ? await db
        .select({ iso2: esimCountries.iso2, name: esimCountries.name })
        .from(esimCountries)
        .where(inArray(esimCountries.iso2, code.iso2))
    : [];
  const nameOf = new Map(names.map((r) => [r.iso2, r.name]));

  const service = type === "SMS" ? "sms" : "voice";
  const prefixes = Array.from({ length: digits.length }, (_, i) => digits.slice(0, i + 1));
  const rates = await db
    .select({
      prefix: exchangeMarketRates.prefix,
      country: exchangeMarketRates.country,
      description: exchangeMarketRates.description,
      iVendor: exchangeMarketRates.iVendor,
      vendor: exchangeAccounts.username,
      priceWithFeeMicros: sql<number>`${exchangeMarketRates.priceMicros} + ${exchangeMarketRates.feeMicros}`,
    })
    .from(exchangeMarketRates)
    .leftJoin(exchangeAccounts, eq(exchangeAccounts.iAccount, exchangeMarketRates.iVendor))
    .where(
      and(eq(exchangeMarketRates.active, true), eq(exchangeMarketRates.service, service), inArray(exchangeMarketRates.prefix, prefixes)),
    )
    .orderBy(
      desc(sql`length(${exchangeMarketRates.prefix})`),
      asc(sql`${exchangeMarketRates.priceMicros} + ${exchangeMarketRates.feeMicros}`),
    )
    .limit(50);
  const best = rates[0]?.prefix;
  const matched = rates.filter((r) => r.prefix === best);

  return {
    prefix: digits,
    type,
    calling_code: code?.callingCode ?? null,
    countries: (code?.iso2 ?? []).map((iso2) => ({ iso2, name: nameOf.get(iso2) ?? null })),
    destination: matched[0] ? { prefix: matched[0].prefix, country: matched[0].country, description: matched[0].description } : null,
    rates: matched.map((r) => ({ i_vendor: r.iVendor, vendor: r.vendor, prefix: r.prefix, price_with_fee: toUsd(r.priceWithFeeMicros) })),
    currency: "USD",
  };
}
