// The eSIM countries (seeded by migration 0004): the valid market `country` values.
import { asc } from "drizzle-orm";
import { esimCountries } from "../../../../schema/exchange.ts";
import type { Db } from "../../../lib/db.ts";
import type { ExchangeServices } from "../context.ts";
import { invalidInput } from "../errors.ts";

export type Country = { name: string; iso2: string };

export async function listCountries(s: Pick<ExchangeServices, "db">): Promise<Country[]> {
  return s.db.select({ name: esimCountries.name, iso2: esimCountries.iso2 }).from(esimCountries).orderBy(asc(esimCountries.name));
}

/** Refuses any name not in the list, naming the field and the first unknown name. */
export async function requireCountries(db: Db, field: string, names: string[]): Promise<string[]> {
  const unique = [...new Set(names)];
  // The whole list (about 250 names) rather than an IN list: D1 binds at most 100 parameters.
  const known = new Set((await db.select({ name: esimCountries.name }).from(esimCountries)).map((r) => r.name));
  const unknown = unique.find((n) => !known.has(n));
  if (unknown !== undefined) throw invalidInput(field, `unknown country "${unknown}": use a name from /buyers/esim/countries`);
  return unique;
}
