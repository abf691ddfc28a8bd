// What the caller-ID pages share: the API's refusals in plain words, countries by name, the
// account's SIP destinations (the routes a check can test), and what each result means.
import { ApiError } from "../../api/errors.ts";
import type { Schemas } from "../../api/client.ts";
import { destinationName, type Destination } from "../../api/destinations.ts";
import { words } from "../../lib/format.ts";

export type CliCheck = Schemas["CliCheck"];
export type Coverage = Schemas["CliCoverage"];
export type Schedule = Schemas["CliSchedule"];
export type HostedNumber = Schemas["HostedNumber"];

export const COVERAGE = ["cli-coverage"] as const;
export const CHECKS = ["cli-checks"] as const;
export const SCHEDULES = ["cli-schedules"] as const;
export const HOSTED = ["hosted-numbers"] as const;

const regions = new Intl.DisplayNames(["en"], { type: "region" });

/** "United Kingdom (GB)"; the code alone when the browser has no name for it. */
export function countryName(code: string): string {
  try {
    const name = regions.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** A check goes out through a SIP destination (a voice agent is no route). */
export const routes = (destinations: Destination[] | undefined) => (destinations ?? []).filter((d) => d.kind !== "voice_ai");

export const routeName = (d: Destination) => `${destinationName(d)}${d.is_default ? " (default)" : ""}`;

/** A destination by id as people know it, or a short form of the id when it is gone. */
export function destinationLabel(destinations: Destination[] | undefined, id: string): string {
  const found = destinations?.find((d) => d.id === id);
  return found ? destinationName(found) : `destination ${id.slice(0, 8)}`;
}

const PLAIN: Record<string, string> = {
  caller_id_not_verified: "This caller ID is not one of your verified numbers: verify it first (Team and access, verified caller IDs).",
  cli_country_not_covered: "No number takes checks in this country now: choose a country from the coverage list.",
  test_calls_disabled: "Test calls are not enabled on this account (Settings, call features): a check places one.",
  too_many_test_calls: "Too many test calls and checks in the last hour: wait a little and try again.",
  placed_calls_daily_cap: "The account placed as many calls today as it may: try again tomorrow.",
  placed_minutes_daily_cap: "The account used today's minutes for calls the platform places: try again tomorrow.",
  hosted_number_exists: "This number is already hosted.",
  insufficient_balance: "The balance does not cover the check's fee: top up first (Billing).",
  test_call_schedules_need_a_person: "A route test schedule must be made by a person signed in to the portal.",
};

/** "code: explanation" (or a bare code) in plain words. */
function plainText(text: string): string {
  const code = /^([a-z0-9_]+)(?::\s*(.*))?$/s.exec(text);
  if (!code) return PLAIN[text.toLowerCase().replace(/ /g, "_")] ?? text;
  if (PLAIN[code[1]!]) return PLAIN[code[1]!]!;
  const rest = code[2] ?? code[1]!.replace(/_/g, " ");
  return `${rest.charAt(0).toUpperCase()}${rest.slice(1)}`;
}

/** The API's refusal with its machine codes (in the detail or a field's message) said in plain words. */
export function plainError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const fields = Object.fromEntries(Object.entries(error.fields).map(([name, msg]) => [name, plainText(msg)]));
  const named = Object.values(fields);
  const message = named.length ? named.join(" ") : plainText(error.message);
  return new ApiError(error.status, message, fields, error.retryAfter);
}

/** Whether every field the refusal names is one of `fields` (then the form shows each beside its input). */
export const namesOnly = (error: unknown, fields: string[]) =>
  error instanceof ApiError && Object.keys(error.fields).length > 0 && Object.keys(error.fields).every((f) => fields.includes(f));

/** A check's result in a few words, for tables and headings. */
export function resultName(check: Pick<CliCheck, "status" | "result" | "change">): string {
  if (check.status === "placing") return "placing";
  if (check.status === "failed") return "failed";
  if (check.result === "modified" && check.change) return `modified (${check.change})`;
  return words(check.result);
}

/** What a result means, in plain words. */
export function meaning(check: CliCheck): string {
  if (check.status === "placing") {
    return "The platform is placing the call through your destination and waiting for it to reach the number. This takes up to a minute and a half.";
  }
  if (check.status === "failed") {
    return `The platform could not place the call${check.error ? ` (${words(check.error)})` : ""}: nothing was tested, and the fee was refunded.`;
  }
  switch (check.result) {
    case "match":
      return "The number arrived exactly as it was sent: this route keeps your caller ID.";
    case "modified":
      return check.change === "format"
        ? "The same number arrived written another way (a national form, 00 instead of +, or no +): the route rewrites the format, not the number."
        : check.change === "prefix"
          ? "The route changed the number's prefix: it added digits in front, or dropped the country code. The called party may not recognise it."
          : "Another number arrived: the route replaced your caller ID's digits. The called party saw a number that is not yours.";
    case "withheld":
      return "The caller ID was withheld: the call arrived asking for privacy (Privacy: id, or an anonymous From), so the called party sees no number.";
    case "missing":
      return "The call arrived without a caller ID: nothing that reads as a number came in From or P-Asserted-Identity.";
    case "not_received":
      return "The call never reached the number in time: the route refused it, lost it or delivered it elsewhere. Nothing was shown to anyone.";
    default:
      return "";
  }
}

/**
 * `received` split where it differs from `sent` (the same start and end kept plain): the middle is
 * what the route changed.
 */
export function changedPart(sent: string, received: string): { before: string; changed: string; after: string } {
  let start = 0;
  while (start < sent.length && start < received.length && sent[start] === received[start]) start++;
  let end = 0;
  while (end < sent.length - start && end < received.length - start && sent[sent.length - 1 - end] === received[received.length - 1 - end])
    end++;
  return {
    before: received.slice(0, start),
    changed: received.slice(start, received.length - end),
    after: received.slice(received.length - end),
  };
}

/** A MOS figure (1 to 5), or "—". */
export const mos = (value: number | null | undefined) => (value === null || value === undefined ? "—" : value.toFixed(2));
