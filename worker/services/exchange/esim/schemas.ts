// Form fields of the buyer eSIM endpoints (spec: eSIM Exchange).
import { z } from "zod";
import { field, optional, paging, required } from "../fields.ts";
import { countryField, iccidField, usdMicros } from "../fields.ts";

/** The market's data_GB filter values; -1 is unlimited. */
export const DATA_GB_FILTERS = [0.5, 1, 5, 10, 20, -1] as const;

const dataGbFilter = () =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, { error: "must be one of 0.5, 1, 5, 10, 20 or -1 (unlimited)" })
    .transform(Number)
    .pipe(
      z.number().refine((n) => (DATA_GB_FILTERS as readonly number[]).includes(n), {
        error: "must be one of 0.5, 1, 5, 10, 20 or -1 (unlimited)",
      }),
    );

export const MarketSearch = z.object({
  country: optional(countryField()),
  esim_vendor: optional(field.text(64)),
  i_vendor: optional(field.integer(1)),
  max_price: optional(usdMicros()),
  data_GB: optional(dataGbFilter()),
  ...paging(20, 100),
});

export const Purchase = z.object({
  i_account: required(field.integer(1)),
  i_esim_package: required(field.integer(1)),
});

export const InventoryList = z.object({
  iccid: optional(iccidField()),
  ...paging(20, 100),
});

export const OrdersList = z.object({
  date_from: optional(field.datetime()),
  date_to: optional(field.datetime()),
  ...paging(20, 100),
});

export const TopupList = z.object({ iccid: required(iccidField()) });

export const TopupPurchase = z.object({
  iccid: required(iccidField()),
  package_type_id: required(field.integer(1)),
  i_account: required(field.integer(1)),
});

export type MarketSearchInput = z.output<typeof MarketSearch>;
export type PurchaseInput = z.output<typeof Purchase>;
export type InventoryListInput = z.output<typeof InventoryList>;
export type OrdersListInput = z.output<typeof OrdersList>;
export type TopupListInput = z.output<typeof TopupList>;
export type TopupPurchaseInput = z.output<typeof TopupPurchase>;
