// Form fields of POST /marketview/search (voice and SMS market rates).
import { z } from "zod";
import { countryField, usdMicros } from "../fields.ts";
import { field, optional, paging, withDefault } from "../fields.ts";
import { prefixField } from "../sellers/schemas.ts";

export const MarketviewSearch = z.object({
  service: optional(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(["voice", "sms"], { error: "must be voice or sms" })),
  ),
  country: optional(countryField()),
  /** Rates whose prefix starts with these digits. */
  prefix: optional(prefixField()),
  max_price: optional(usdMicros(100)),
  i_vendor: optional(field.integer(1)),
  vendor: optional(field.text(64)),
  /** json (paged) or csv (the whole rate deck matching the filters, unpaged). */
  format: withDefault(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(["json", "csv"], { error: "must be json or csv" })),
    "json",
  ),
  ...paging(100, 1000),
});

export type MarketviewSearchInput = z.output<typeof MarketviewSearch>;
