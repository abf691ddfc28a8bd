// What the held number saw, set against the caller ID that was sent: the result of a CLI check.
// Withheld when the network asked for privacy (RFC 3323 Privacy: id, user or header, or an
// anonymous From); missing when nothing that reads as a number arrived; match when the number that
// arrived is the one sent, digit for digit; modified otherwise, saying how: format (the same number
// written another way: national form, 00 or no +), prefix (digits added in front, or the country
// code dropped) or digits (another number).
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import type { CliArrival } from "../../../schema/node-api.ts";

export type CliResult = "match" | "modified" | "withheld" | "missing" | "not_received";
export type CliChange = "format" | "prefix" | "digits";
export type Comparison = { result: Exclude<CliResult, "not_received">; change: CliChange | null; presented: string | null };

const PRIVATE = new Set(["id", "user", "header"]);
const ANONYMOUS = /^(anonymous|unknown|unavailable|restricted|private|withheld)$/i;

/** The number the callee is shown: From's user part, or P-Asserted-Identity's when From carries none. */
function presentedNumber(arrival: Pick<CliArrival, "from_user" | "asserted">): string | null {
  const candidates = [arrival.from_user, arrival.asserted].map((v) => v?.trim() ?? "");
  return candidates.find((v) => /[0-9]{3,}/.test(v) && !ANONYMOUS.test(v)) ?? null;
}

const digitsOf = (value: string) => value.replace(/[^0-9]/g, "");

export function compareCallerId(
  sent: string,
  arrival: Pick<CliArrival, "from_user" | "asserted" | "privacy">,
  country: string,
): Comparison {
  const fromUser = arrival.from_user?.trim() ?? "";
  if (arrival.privacy.some((value) => PRIVATE.has(value)) || ANONYMOUS.test(fromUser)) {
    return { result: "withheld", change: null, presented: null };
  }
  const presented = presentedNumber(arrival);
  if (!presented) return { result: "missing", change: null, presented: null };
  const sentDigits = digitsOf(sent);
  const presentedDigits = digitsOf(presented);
  if (presented.replace(/^\+/, "") === sent.replace(/^\+/, "") && presentedDigits === sentDigits) {
    return { result: "match", change: null, presented };
  }
  return { result: "modified", change: changeOf(sent, presented, country), presented };
}

/** How the presented number differs from the one sent. */
function changeOf(sent: string, presented: string, country: string): CliChange {
  const sentNumber = parsePhoneNumberFromString(sent.startsWith("+") ? sent : `+${sent}`);
  const read = readAs(presented, country, sentNumber?.country);
  if (sentNumber && read?.number === sentNumber.number) return "format";
  const national = sentNumber?.nationalNumber ?? digitsOf(sent);
  const presentedDigits = digitsOf(presented);
  if (national.length >= 6 && presentedDigits.endsWith(national)) return "prefix";
  if (presentedDigits.length >= 6 && digitsOf(sent).endsWith(presentedDigits)) return "prefix";
  return "digits";
}

/** The presented number as E.164, read in the country it arrived in, else the sender's. */
function readAs(presented: string, country: string, senderCountry: CountryCode | undefined) {
  const text = presented.trim().replace(/^00/, "+");
  for (const region of [country as CountryCode, senderCountry]) {
    const parsed = parsePhoneNumberFromString(text, region);
    if (parsed?.isPossible()) return parsed;
  }
  return null;
}
