// The field types of the exchange's form schemas (the verbs' inputs, in each area's schemas.ts):
// every value arrives as text (JSON arrays are kept as arrays); an empty value counts as absent.
// The front door reads a request's fields and validates them against these
// (worker/exchange/respond.ts, parseFields).
import { z } from "zod";
import { toMicros } from "../../lib/money.ts";

const blank = (v: unknown) => (v === "" || v === null ? undefined : typeof v === "string" ? v.trim() : v);

export const field = {
  /** Text, trimmed, 1..max characters. */
  text: (max = 255) =>
    z
      .string({ error: "must be text" })
      .min(1, { error: "required" })
      .max(max, { error: `at most ${max} characters` }),
  /** An integer between min and max. */
  integer: (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce
      .number({ error: "must be an integer" })
      .int({ error: "must be an integer" })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  /** A decimal number between min and max. */
  number: (min = -Infinity, max = Infinity) =>
    z.coerce
      .number({ error: "must be a number" })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  /** A USD amount given as decimal text, up to 6 decimals. Kept as text for exact money parsing (worker/lib/money.ts). */
  usd: () => z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, { error: "must be a USD amount such as 12.50" }),
  /** "YYYY-MM-DD HH:MM:SS" in UTC (a date alone means midnight), returned as ISO 8601 with milliseconds. */
  datetime: () =>
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/, { error: "must be YYYY-MM-DD HH:MM:SS (UTC)" })
      .transform((v, ctx) => {
        const iso = `${v.length === 10 ? `${v}T00:00:00` : v.replace(" ", "T")}.000Z`;
        const ms = Date.parse(iso);
        if (Number.isNaN(ms) || new Date(ms).toISOString() !== iso) {
          ctx.addIssue({ code: "custom", message: "not a valid date and time" });
          return z.NEVER;
        }
        return iso;
      }),
  /** Digits only, between min and max of them. */
  digits: (min: number, max: number) =>
    z.string().regex(new RegExp(`^\\d{${min},${max}}$`), { error: `must be ${min === max ? min : `${min} to ${max}`} digits` }),
};

/** A required form field: an empty value answers "<field>: required". */
export const required = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema);
/** An optional form field: absent or empty is undefined. */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema.optional());
/** An optional form field with a default when absent or empty. */
export const withDefault = <T extends z.ZodType>(schema: T, fallback: z.output<T>) => z.preprocess((v) => blank(v) ?? fallback, schema);
/** `pager` and `off` as the spec pages lists: offset-based, `pager` between 1 and max. */
export const paging = (defaultPager: number, maxPager = 100) => ({
  pager: withDefault(field.integer(1, maxPager), defaultPager),
  off: withDefault(field.integer(0), 0),
});

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
