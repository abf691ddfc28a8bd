// The number checks of a carrier call's screening (libphonenumber-js, full metadata): a caller ID
// that cannot be a number or is not one in service, one equal to the number dialled, one sharing
// the dialled number's neighbourhood (neighbour spoofing), one on the do-not-originate list.
import { parsePhoneNumberFromString, type PhoneNumber } from "libphonenumber-js/max";
import { normalizeNumber } from "../../../schema/numbers.ts";
import type { ScreeningFlag, ScreeningSettings } from "../../../schema/screening.ts";

/** The two numbers of a call as the checks read them (null: not a number in international form). */
export type CallNumbers = { caller: PhoneNumber | null; callerRaw: string | null; dialled: PhoneNumber | null; dialledRaw: string };

/** Reads a number the way calls name it: with its +, after 00 or 011, or as digits starting with the country code. */
export function parseNumber(raw: string | null): PhoneNumber | null {
  if (!raw) return null;
  const normalized = normalizeNumber(raw);
  if (/[*#]/.test(normalized)) return null;
  const international = normalized.startsWith("+") ? normalized.slice(1) : normalized.replace(/^(00|011)(?=[1-9])/, "");
  if (!/^[0-9]{1,17}$/.test(international)) return null;
  return parsePhoneNumberFromString(`+${international}`) ?? null;
}

export function callNumbers(ani: string | null, dialled: string): CallNumbers {
  return { caller: parseNumber(ani), callerRaw: ani, dialled: parseNumber(dialled), dialledRaw: dialled };
}

type Check = (n: CallNumbers, dno: ReadonlySet<string>) => string | null;

/**
 * What each check sees, in a sentence, or null. No caller ID at all (withheld) is not screened by
 * number: nothing to compare.
 */
export const NUMBER_CHECKS = {
  invalid_caller_id: ({ caller, callerRaw }) => {
    if (!callerRaw) return null;
    if (!caller || !caller.isPossible()) return `caller ID ${callerRaw} cannot be a telephone number`;
    return caller.isValid() ? null : `caller ID ${caller.number} is not a number in service in any numbering plan`;
  },
  caller_id_equals_dialled: ({ caller, callerRaw, dialled, dialledRaw }) => {
    if (!callerRaw) return null;
    const same = caller && dialled ? caller.number === dialled.number : digits(callerRaw) === digits(dialledRaw);
    return same ? `caller ID ${caller?.number ?? callerRaw} is the number dialled` : null;
  },
  neighbour_spoofing: ({ caller, dialled }) => {
    if (!caller || !dialled || !neighbours(caller, dialled)) return null;
    const shared = neighbourhoodOf(dialled);
    return `caller ID ${caller.number} shares ${shared.label} +${dialled.countryCallingCode} ${shared.digits} with the number dialled`;
  },
  do_not_originate: ({ caller }, dno) =>
    caller && dno.has(caller.number) ? `caller ID ${caller.number} is on the do-not-originate list` : null,
} as const satisfies Record<string, Check>;

export type NumberRule = keyof typeof NUMBER_CHECKS;
const NUMBER_RULES = Object.keys(NUMBER_CHECKS) as NumberRule[];

/** The flags of the number checks the account has on. */
export function numberFlags(settings: ScreeningSettings, numbers: CallNumbers, dno: ReadonlySet<string>): ScreeningFlag[] {
  const flags: ScreeningFlag[] = [];
  for (const rule of NUMBER_RULES) {
    const { action } = settings[rule];
    if (action === "off") continue;
    const detail = NUMBER_CHECKS[rule](numbers, dno);
    if (detail) flags.push({ rule, detail, action });
  }
  return flags;
}

/**
 * A number's neighbourhood: in the NANP (+1) its area code and exchange (the first 6 national
 * digits), elsewhere its national number but the last 4 digits (the subscriber's block).
 * Numbers whose national part is under 8 digits are never neighbours (too few digits to share).
 */
export function neighbourhoodOf(n: PhoneNumber): { label: string; digits: string } {
  const national = String(n.nationalNumber);
  if (n.countryCallingCode === "1") return { label: "area code and exchange", digits: national.slice(0, 6) };
  return { label: "leading digits", digits: national.slice(0, -4) };
}

function neighbours(a: PhoneNumber, b: PhoneNumber): boolean {
  if (a.number === b.number || a.countryCallingCode !== b.countryCallingCode) return false;
  const [na, nb] = [String(a.nationalNumber), String(b.nationalNumber)];
  if (na.length !== nb.length || na.length < 8) return false;
  return neighbourhoodOf(a).digits === neighbourhoodOf(b).digits;
}

const digits = (raw: string) => normalizeNumber(raw).replace(/^\+/, "");
