// Form fields of the eSIM, IoT, market and seller endpoints that respond.ts's field types do not
// cover. Values arrive as text (JSON arrays are kept as arrays); an empty value counts as absent.
import { z } from "zod";
import { toMicros } from "../../lib/money.ts";
import { field } from "../respond.ts";

/** A USD amount (decimal text, up to 6 decimals) above 0 and at most `max`, as micro-dollars. */
export const usdMicros = (max = 100_000) =>
  z
    .union([z.number(), z.string()])
    .transform((v) => String(v))
    .pipe(field.usd())
    .transform((v) => toMicros(v))
    .pipe(
      z
        .number()
        .int()
        .min(1, { error: "must be more than 0" })
        .max(max * 1_000_000, { error: `must be at most ${max}` }),
    );

/** An ICCID as the API takes it: 18-22 digits. */
export const iccidField = () => field.digits(18, 22);

/** -1 (unlimited) or more than 0 and at most 10000 GB, with at most 2 decimals. */
export const dataGbField = () =>
  z
    .union([z.number(), z.string()])
    .transform((v) => String(v))
    .pipe(z.string().regex(/^(-1|\d{1,5}(\.\d{1,2})?)$/, { error: "must be -1 (unlimited) or a number of GB with at most 2 decimals" }))
    .transform(Number)
    .pipe(
      z.number().refine((n) => n === -1 || (n > 0 && n <= 10_000), { error: "must be -1 (unlimited) or more than 0 and at most 10000" }),
    );

/** Uppercase country names: a JSON array, or text with the names comma-separated (no name holds a comma). */
export const countryListField = () =>
  z
    .union([z.string(), z.array(z.string())], { error: "must be country names, comma-separated" })
    .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((x) => x.trim().toUpperCase()).filter((x) => x !== ""))
    .pipe(z.array(z.string().max(100)).min(1, { error: "must name at least one country" }).max(250, { error: "at most 250 countries" }));

/** One uppercase country name. */
export const countryField = () =>
  z
    .string()
    .transform((v) => v.trim().toUpperCase())
    .pipe(field.text(100));

/** ISO 8601 to the API's "YYYY-MM-DD HH:MM:SS" (UTC). */
export const datetimeOf = (iso: string) => iso.slice(0, 19).replace("T", " ");
