// Settings of the exchange's commerce (eSIM issuing, SM-DP+ notifications, platform fee, IoT
// charge), read from the Worker's vars with defaults, parsed once per binding set.
// Every name is listed in the exchange part of docs/decisions/exchange.md.
import { z } from "zod";
import { ConfigError, type Bindings } from "../../env.ts";
import { toMicros } from "../../lib/money.ts";

const digits = (min: number, max: number) => z.string().regex(new RegExp(`^\\d{${min},${max}}$`), `${min}-${max} digits`);
const usd = z
  .string()
  .regex(/^\d+(\.\d{1,6})?$/, "a USD amount, e.g. 0.001")
  .transform((v) => toMicros(v));

const SettingsSchema = z
  .object({
    /** Platform fee in percent of the seller's price, added to form price_with_fee. */
    EXCHANGE_PLATFORM_FEE_PERCENT: z
      .string()
      .regex(/^\d{1,3}(\.\d{1,2})?$/, "a percentage with at most two decimals")
      .default("10")
      .transform((v) => Math.round(Number(v) * 100))
      .refine((bp) => bp <= 10_000, "at most 100"),
    /** FQDN of the SM-DP+ the issued profiles are downloaded from. */
    ESIM_SMDP_ADDRESS: z
      .string()
      .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, "a host name")
      .default("smdp.example.net"),
    /** ICCID issuer prefix: "89" (telecom) + E.164 country code + issuer identifier. */
    ESIM_ISSUER_COUNTRY_CODE: digits(1, 3).default("44"),
    ESIM_ISSUER_ID: digits(1, 5).default("99"),
    /** 19 or 20 digits, the last one the Luhn check digit. */
    ESIM_ICCID_LENGTH: z.enum(["19", "20"]).default("19").transform(Number),
    /** Shared secret the SM-DP+ signs its notifications with; derived from ENCRYPTION_KEY when unset. */
    ESIM_NOTIFY_SECRET: z.string().min(32, "at least 32 characters").optional(),
    /** How far a notification's X-Timestamp may be from our clock. */
    ESIM_NOTIFY_MAX_SKEW_SEC: z.coerce.number().int().min(1).default(300),
    /** Charged per IoT event ingested. */
    IOT_EVENT_CHARGE_USD: usd.default(toMicros("0.001")),
  })
  .refine((s) => 2 + s.ESIM_ISSUER_COUNTRY_CODE.length + s.ESIM_ISSUER_ID.length <= s.ESIM_ICCID_LENGTH - 9, {
    message: "the issuer prefix leaves fewer than 8 serial digits",
    path: ["ESIM_ISSUER_ID"],
  });

export type ExchangeSettings = {
  feeBasisPoints: number;
  smDpAddress: string;
  issuerPrefix: string;
  iccidLength: 19 | 20;
  notifySecret: string | null;
  notifyMaxSkewSec: number;
  iotEventChargeMicros: number;
};

const cache = new WeakMap<object, ExchangeSettings>();

export function exchangeSettings(env: Bindings): ExchangeSettings {
  const cached = cache.get(env);
  if (cached) return cached;
  const parsed = SettingsSchema.safeParse(env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`invalid exchange configuration: ${fields}`);
  }
  const s = parsed.data;
  const settings: ExchangeSettings = {
    feeBasisPoints: s.EXCHANGE_PLATFORM_FEE_PERCENT,
    smDpAddress: s.ESIM_SMDP_ADDRESS.toLowerCase(),
    issuerPrefix: `89${s.ESIM_ISSUER_COUNTRY_CODE}${s.ESIM_ISSUER_ID}`,
    iccidLength: s.ESIM_ICCID_LENGTH as 19 | 20,
    notifySecret: s.ESIM_NOTIFY_SECRET ?? null,
    notifyMaxSkewSec: s.ESIM_NOTIFY_MAX_SKEW_SEC,
    iotEventChargeMicros: s.IOT_EVENT_CHARGE_USD,
  };
  cache.set(env, settings);
  return settings;
}

/** The platform fee on a seller's price, rounded half up to the micro-dollar. */
export function feeMicros(priceMicros: number, settings: Pick<ExchangeSettings, "feeBasisPoints">): number {
  return Number((BigInt(priceMicros) * BigInt(settings.feeBasisPoints) + 5_000n) / 10_000n);
}
