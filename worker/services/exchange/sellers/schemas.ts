// Form fields of the seller endpoints. Each resource takes the field names it shows: eSIM
// packages `data_gb` (as in the market), top-ups `data_GB` (as in the top-up list).
import { z } from "zod";
import { field, optional, paging, required, withDefault } from "../fields.ts";
import { countryField, countryListField, dataGbField, usdMicros } from "../fields.ts";

const id = () => field.integer(1);
const kind = () => z.enum(["universal", "regional"], { error: "must be universal or regional" });
const policy = () => z.enum(["immediate", "on_first_use"], { error: "must be immediate or on_first_use" });
const service = () =>
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(["voice", "sms"], { error: "must be voice or sms" }));
/** E.164 digits, a leading "+" dropped. */
export const prefixField = () =>
  z
    .string()
    .transform((v) => v.replace(/^\+/, ""))
    .pipe(field.digits(1, 15));

export const PackagePublish = z.object({
  name: required(field.text(100)),
  countries: required(countryListField()),
  data_gb: required(dataGbField()),
  validity_days: required(field.integer(1, 3650)),
  price: required(usdMicros()),
  kind: withDefault(kind(), "universal"),
});
export const PackageUpdate = z.object({
  i_esim_package: required(id()),
  name: optional(field.text(100)),
  countries: optional(countryListField()),
  data_gb: optional(dataGbField()),
  validity_days: optional(field.integer(1, 3650)),
  price: optional(usdMicros()),
  kind: optional(kind()),
});
export const PackageRef = z.object({ i_esim_package: required(id()) });

export const TopupPublish = z.object({
  name: required(field.text(100)),
  supported_countries: required(countryListField()),
  data_GB: required(dataGbField()),
  validity_days: required(field.integer(1, 3650)),
  activation_policy: withDefault(policy(), "immediate"),
  price: required(usdMicros()),
});
export const TopupUpdate = z.object({
  package_type_id: required(id()),
  name: optional(field.text(100)),
  supported_countries: optional(countryListField()),
  data_GB: optional(dataGbField()),
  validity_days: optional(field.integer(1, 3650)),
  activation_policy: optional(policy()),
  price: optional(usdMicros()),
});
export const TopupRef = z.object({ package_type_id: required(id()) });

export const RatePublish = z.object({
  service: required(service()),
  country: required(countryField()),
  prefix: required(prefixField()),
  price: required(usdMicros(100)),
  description: optional(field.text(200)),
});
export const RateUpdate = z.object({
  i_rate: required(id()),
  country: optional(countryField()),
  price: optional(usdMicros(100)),
  description: optional(field.text(200)),
});
export const RateRef = z.object({ i_rate: required(id()) });

export const SellerList = z.object(paging(100, 1000));

export type PackagePublishInput = z.output<typeof PackagePublish>;
export type PackageUpdateInput = z.output<typeof PackageUpdate>;
export type TopupPublishInput = z.output<typeof TopupPublish>;
export type TopupUpdateInput = z.output<typeof TopupUpdate>;
export type RatePublishInput = z.output<typeof RatePublish>;
export type RateUpdateInput = z.output<typeof RateUpdate>;
export type ListInput = z.output<typeof SellerList>;
