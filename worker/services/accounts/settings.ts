// Account settings the owner and members keep on the account row: the tax id, where media is
// stored and relayed, the low-balance alert, the billing address (which decides the tax), and
// the calls the platform places for the account (test calls, the web dialer).
import { eq } from "drizzle-orm";
import { customers, type BillingAddress } from "../../../schema/identity.ts";
import { toMicros, toUsd } from "../../lib/money.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import { Forbidden, InvalidField } from "../errors.ts";
import type { CustomerRow, Principal } from "../identity/principal.ts";
import { CANADIAN_PROVINCES, taxRuleFor, taxRuleOut } from "../billing/tax.ts";

const update = (s: Services, customerId: string, changes: Partial<typeof customers.$inferInsert>) =>
  s.db
    .update(customers)
    .set({ ...changes, updatedAt: nowIso() })
    .where(eq(customers.id, customerId))
    .returning()
    .get() as Promise<CustomerRow>;

export const getTaxId = ({ customer }: Principal) => ({ tax_id: customer.taxId });

export async function putTaxId(s: Services, { customer }: Principal, input: { tax_id: string | null }) {
  const row = await update(s, customer.id, { taxId: input.tax_id || null });
  return { tax_id: row.taxId };
}

const dataLocationOut = (s: Services, row: CustomerRow) => ({
  data_region: row.dataRegion,
  media_region: row.mediaRegion,
  data_regions: s.config.DATA_REGIONS,
  media_regions: s.config.MEDIA_REGIONS,
});

export const getDataLocation = (s: Services, { customer }: Principal) => dataLocationOut(s, customer);

/** Only regions where the platform has a bucket (data) or a relay (media); calls from now on use them. */
export async function putDataLocation(s: Services, { customer }: Principal, input: { data_region?: string; media_region?: string }) {
  if (input.data_region !== undefined && !s.config.DATA_REGIONS.includes(input.data_region)) {
    throw new InvalidField("data_region", `no media bucket in that region; one of ${s.config.DATA_REGIONS.join(", ")}`, "enum");
  }
  if (input.media_region !== undefined && !s.config.MEDIA_REGIONS.includes(input.media_region)) {
    throw new InvalidField("media_region", `no media relay in that region; one of ${s.config.MEDIA_REGIONS.join(", ")}`, "enum");
  }
  const row = await update(s, customer.id, {
    ...(input.data_region !== undefined && { dataRegion: input.data_region }),
    ...(input.media_region !== undefined && { mediaRegion: input.media_region }),
  });
  return dataLocationOut(s, row);
}

const callFeaturesOut = (row: CustomerRow) => ({ dialer_enabled: row.dialerEnabled, test_calls_enabled: row.testCallsEnabled });

export const getCallFeatures = ({ customer }: Principal) => callFeaturesOut(customer);

/**
 * The calls the platform places for the account (test calls, the web dialer) switched on or off.
 * An AI agent may not switch them: turning on a way to ring phones is a person's decision.
 */
export async function putCallFeatures(
  s: Services,
  principal: Principal,
  input: { dialer_enabled?: boolean; test_calls_enabled?: boolean },
) {
  if (principal.via === "connector") throw new Forbidden("connector_forbidden");
  const row = await update(s, principal.customer.id, {
    ...(input.dialer_enabled !== undefined && { dialerEnabled: input.dialer_enabled }),
    ...(input.test_calls_enabled !== undefined && { testCallsEnabled: input.test_calls_enabled }),
  });
  return callFeaturesOut(row);
}

const alertOut = (row: CustomerRow) => ({
  enabled: row.lowBalanceAlertEnabled,
  threshold: toUsd(row.lowBalanceThresholdMicros),
  armed: row.lowBalanceAlertArmed,
});

export const getLowBalanceAlert = ({ customer }: Principal) => alertOut(customer);

/** Arms the alert at once when the balance is at or above the (new) threshold. */
export async function putLowBalanceAlert(s: Services, { customer }: Principal, input: { enabled?: boolean; threshold?: number }) {
  const thresholdMicros = input.threshold === undefined ? customer.lowBalanceThresholdMicros : toMicros(input.threshold);
  const { balance_micros } = await s.ledger(customer.id).summary();
  const row = await update(s, customer.id, {
    ...(input.enabled !== undefined && { lowBalanceAlertEnabled: input.enabled }),
    lowBalanceThresholdMicros: thresholdMicros,
    lowBalanceAlertArmed: balance_micros >= thresholdMicros || customer.lowBalanceAlertArmed,
  });
  return alertOut(row);
}

const ADDRESS_FIELDS = ["name", "line1", "line2", "city", "postal_code", "country", "province"] as const;

/** The address's fields, each null when unset: as the account's settings and its invoices show them. */
export function postalAddressOut(address: BillingAddress | null) {
  return Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, address?.[f] ?? null])) as Record<(typeof ADDRESS_FIELDS)[number], string | null>;
}

export function billingAddressOut(address: BillingAddress | null) {
  return { ...postalAddressOut(address), ...taxRuleOut(taxRuleFor(address)) };
}

export const getBillingAddress = ({ customer }: Principal) => billingAddressOut(customer.billingAddress);

/** Replaces the billing profile; the account's country and province follow it. */
export async function putBillingAddress(s: Services, { customer }: Principal, input: BillingAddress) {
  const address = Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, input[f] || null])) as BillingAddress;
  if (address.country === "CA" && address.province && !(CANADIAN_PROVINCES as readonly string[]).includes(address.province)) {
    throw new InvalidField("province", `a Canadian province or territory: ${CANADIAN_PROVINCES.join(", ")}`, "enum");
  }
  const row = await update(s, customer.id, { billingAddress: address, country: address.country, province: address.province });
  return billingAddressOut(row.billingAddress);
}
