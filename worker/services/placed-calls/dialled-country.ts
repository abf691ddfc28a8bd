// The country a dialled number reaches, by libphonenumber-js's numbering plan metadata. Carriers
// send the number as digits, often without "+" and sometimes behind an international prefix
// (00, 011): both are read as E.164.
import { parsePhoneNumberFromString } from "libphonenumber-js";

export type DialledCountry = { code: string | null; name: string; iso: boolean };

const UNKNOWN: DialledCountry = { code: null, name: "Unknown", iso: false };
const regionNames = new Intl.DisplayNames(["en"], { type: "region" });

export function countryOfIso(iso: string): DialledCountry {
  const code = iso.toUpperCase();
  return { code, name: regionNames.of(code) ?? code, iso: true };
}

/** The number's country; its calling code alone (iso false) for numbers of no one country (+882); else Unknown. */
export function dialledCountry(dialled: string | null): DialledCountry {
  const digits = (dialled ?? "").replace(/[^\d+]/g, "");
  if (!digits) return UNKNOWN;
  const e164 = digits.startsWith("+") ? digits : `+${digits.replace(/^(00|011)/, "")}`;
  const number = parsePhoneNumberFromString(e164);
  if (!number) return UNKNOWN;
  if (number.country) return countryOfIso(number.country);
  return { code: `+${number.countryCallingCode}`, name: `International +${number.countryCallingCode}`, iso: false };
}
