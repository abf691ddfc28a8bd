// Account settings: tax id, data location, low-balance alert, billing address. The spec leaves
// their bodies open; these shapes are ours (docs/decisions/call-ledger-and-money.md#account-settings-bodies).
import { z } from "@hono/zod-openapi";

export const TaxIdSchema = z
  .object({ tax_id: z.string().nullable().openapi({ description: "Tax ID or VAT number, free text", example: "123456789RT0001" }) })
  .openapi("TaxId");

export const PutTaxIdSchema = z
  .object({
    tax_id: z
      .string()
      .trim()
      .max(64)
      .nullable()
      .openapi({ description: "Free text; null or an empty string clears it", example: "123456789RT0001" }),
  })
  .openapi("PutTaxId");

const region = z.string().regex(/^[a-z0-9-]{1,32}$/);

export const DataLocationSchema = z
  .object({
    data_region: z.string().openapi({ description: "Where recordings and captures of calls are stored", example: "ca" }),
    media_region: z.string().openapi({ description: "Where the media relay of calls runs", example: "ca" }),
    data_regions: z.array(z.string()).openapi({ description: "Regions with a media bucket", example: ["ca"] }),
    media_regions: z.array(z.string()).openapi({ description: "Regions with a media relay", example: ["ca"] }),
  })
  .openapi("DataLocation");

export const PutDataLocationSchema = z
  .object({
    data_region: region.optional().openapi({ example: "ca" }),
    media_region: region.optional().openapi({ example: "ca" }),
  })
  .openapi("PutDataLocation");

export const LowBalanceAlertSchema = z
  .object({
    enabled: z.boolean(),
    threshold: z.number().openapi({ description: "USD", example: 5 }),
    armed: z.boolean().openapi({ description: "true: the next fall of the balance below the threshold sends one e-mail" }),
  })
  .openapi("LowBalanceAlert");

export const PutLowBalanceAlertSchema = z
  .object({
    enabled: z.boolean().optional(),
    threshold: z.number().min(0).max(1_000_000).optional().openapi({ description: "USD", example: 20 }),
  })
  .openapi("PutLowBalanceAlert");

export const CallFeaturesSchema = z
  .object({
    dialer_enabled: z.boolean().openapi({ description: "The web dialer may mint tokens and place calls (off for a new account)" }),
    test_calls_enabled: z.boolean().openapi({ description: "The platform may place test calls and verification calls for the account" }),
  })
  .openapi("CallFeatures");

export const PutCallFeaturesSchema = CallFeaturesSchema.partial().openapi("PutCallFeatures");

const line = z.string().trim().max(200).nullable().optional();

export const PutBillingAddressSchema = z
  .object({
    name: line.openapi({ example: "Northern Carrier Inc." }),
    line1: line.openapi({ example: "100 King St W" }),
    line2: line,
    city: line.openapi({ example: "Toronto" }),
    postal_code: z.string().trim().max(20).nullable().optional().openapi({ example: "M5X 1A9" }),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, "an ISO 3166-1 alpha-2 country code")
      .transform((v) => v.toUpperCase())
      .nullable()
      .optional()
      .openapi({ example: "CA" }),
    province: z
      .string()
      .regex(/^[A-Za-z]{2,3}$/, "a province or state code")
      .transform((v) => v.toUpperCase())
      .nullable()
      .optional()
      .openapi({ description: "For CA: AB, BC, MB, NB, NL, NS, NT, NU, ON, PE, QC, SK or YT", example: "ON" }),
  })
  .openapi("PutBillingAddress");

export const TaxComponentSchema = z
  .object({ name: z.string().openapi({ example: "HST" }), rate_pct: z.number().openapi({ example: 13 }) })
  .openapi("TaxComponent");

/** A billing address as answers show it: the account's (BillingAddress) and the copy an invoice keeps. */
const billingAddressFields = {
  name: z.string().nullable(),
  line1: z.string().nullable(),
  line2: z.string().nullable(),
  city: z.string().nullable(),
  postal_code: z.string().nullable(),
  country: z.string().nullable().openapi({ example: "CA" }),
  province: z.string().nullable().openapi({ example: "ON" }),
};

/** The address as it stood when an invoice was issued. */
export const InvoiceBillingAddressSchema = z.object(billingAddressFields).openapi("InvoiceBillingAddress");

export const BillingAddressSchema = z
  .object({
    ...billingAddressFields,
    tax_exempt: z.boolean().openapi({ description: "Outside Canada or no country: no tax is charged" }),
    tax_components: z.array(TaxComponentSchema),
    tax_rate_pct: z.number().openapi({ example: 13 }),
  })
  .openapi("BillingAddress");
