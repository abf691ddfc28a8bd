// Canadian sales tax on what the account is billed, decided by the billing address alone
// (docs/decisions/call-ledger-and-money.md#low-balance-alert-and-canadian-tax): outside Canada or no country → exempt; Canada →
// HST in the harmonized provinces, 5% federal GST everywhere else and when the province is unset.
import type { BillingAddress } from "../../../schema/identity.ts";

export const CANADIAN_PROVINCES = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"] as const;

/** Rates in basis points (1% = 100), so tax is computed on integers. */
const HST_BPS: Partial<Record<string, number>> = { ON: 1300, NB: 1500, NL: 1500, NS: 1500, PE: 1500 };
const GST_BPS = 500;

export type TaxComponent = { name: "GST" | "HST"; rate_bps: number };
export type TaxRule = { exempt: boolean; components: TaxComponent[] };

export function taxRuleFor(address: Pick<BillingAddress, "country" | "province"> | null): TaxRule {
  if (address?.country?.toUpperCase() !== "CA") return { exempt: true, components: [] };
  const hst = address.province ? HST_BPS[address.province.toUpperCase()] : undefined;
  return { exempt: false, components: [hst ? { name: "HST", rate_bps: hst } : { name: "GST", rate_bps: GST_BPS }] };
}

/** Tax on an amount of micro-dollars, each component rounded half up to the cent as invoices show it. */
export function taxOn(subtotalMicros: number, rule: TaxRule): { name: string; rate_bps: number; amount_micros: number }[] {
  return rule.components.map((c) => ({ ...c, amount_micros: roundToCent((subtotalMicros * c.rate_bps) / 10_000) }));
}

const CENT = 10_000;
export const roundToCent = (micros: number) => Math.sign(micros) * Math.round(Math.abs(micros) / CENT) * CENT;

/** The rule as the API shows it: percentages. */
export const taxRuleOut = (rule: TaxRule) => ({
  tax_exempt: rule.exempt,
  tax_components: rule.components.map((c) => ({ name: c.name, rate_pct: c.rate_bps / 100 })),
  tax_rate_pct: rule.components.reduce((sum, c) => sum + c.rate_bps, 0) / 100,
});
