// The tax a billing address brings, in words (the spec: outside Canada or unset means tax exempt;
// in Canada GST/HST by province, and an unset province bills the 5% federal GST). The API decides
// (GET /customer/billing-address answers tax_exempt and tax_components); this repeats the rule only
// to preview an address before it is saved.

export const PROVINCES: [string, string][] = [
  ["AB", "Alberta"],
  ["BC", "British Columbia"],
  ["MB", "Manitoba"],
  ["NB", "New Brunswick"],
  ["NL", "Newfoundland and Labrador"],
  ["NS", "Nova Scotia"],
  ["NT", "Northwest Territories"],
  ["NU", "Nunavut"],
  ["ON", "Ontario"],
  ["PE", "Prince Edward Island"],
  ["QC", "Quebec"],
  ["SK", "Saskatchewan"],
  ["YT", "Yukon"],
];

const HST: Record<string, number> = { ON: 13, NB: 15, NL: 15, NS: 15, PE: 15 };

export type TaxRule = { tax_exempt: boolean; tax_components: { name: string; rate_pct: number }[] };

/** The rule for an address not yet saved. */
export function previewTax(country: string, province: string): TaxRule {
  if (country.trim().toUpperCase() !== "CA") return { tax_exempt: true, tax_components: [] };
  const hst = HST[province.trim().toUpperCase()];
  return { tax_exempt: false, tax_components: [hst ? { name: "HST", rate_pct: hst } : { name: "GST", rate_pct: 5 }] };
}

const provinceName = (code: string | null) => PROVINCES.find(([c]) => c === code?.toUpperCase())?.[1] ?? null;

/** One sentence: what every invoice to this address carries. */
export function taxWords(rule: TaxRule, country: string | null, province: string | null): string {
  const where = country?.trim().toUpperCase() || "";
  if (rule.tax_exempt) {
    return where
      ? `Billed outside Canada (${where}): no tax is charged; invoices are tax exempt.`
      : "No country set: no tax is charged; invoices are tax exempt.";
  }
  const parts = rule.tax_components.map((c) =>
    c.name === "HST" ? `${c.rate_pct}% HST (harmonized sales tax)` : `${c.rate_pct}% GST (federal goods and services tax)`,
  );
  const named = provinceName(province);
  const place = named ? `Canada, ${named}` : "Canada without a province";
  return `${place}: every invoice adds ${parts.join(" and ")}.`;
}
