// Telephone numbers as they arrive in SIP (user parts of URIs): kept as dialled, compared
// as digits; and numbers that prove or unlock something (verified caller IDs, the number policy
// of calls the platform places) compared in E.164 through libphonenumber-js. Shared by the Worker
// and the AccountLedger's admission, so it lives in schema/ beside cidr.ts, not in worker/.
import { parsePhoneNumberFromString } from "libphonenumber-js";

/** Keeps digits, * and #, and a leading +; drops spaces, dashes, dots and brackets. */
export function normalizeNumber(raw: string): string {
  const trimmed = raw.trim();
  const body = trimmed.replace(/[^0-9*#]/g, "");
  return trimmed.startsWith("+") ? `+${body}` : body;
}

/** The number without its leading +, for prefix matching and controlled-number lookups. */
export const digitsOf = (raw: string): string => normalizeNumber(raw).replace(/^\+/, "");

/**
 * The number in E.164 ("+18005551234"), or null when it cannot be one. A number is read as
 * international, the way calls name it: with its +, after an international prefix (00, or 011
 * from North America: "0018005551234" and "+1 800 555 1234" are one number), or as bare digits
 * starting with the country code. A national form ("0800…") has no country to read it in: null.
 */
export function toE164(raw: string): string | null {
  const normalized = normalizeNumber(raw);
  if (/[*#]/.test(normalized)) return null;
  const international = normalized.startsWith("+") ? normalized.slice(1) : normalized.replace(/^(00|011)(?=[1-9])/, "");
  if (!/^[1-9][0-9]{1,16}$/.test(international)) return null;
  const parsed = parsePhoneNumberFromString(`+${international}`);
  return parsed?.isPossible() ? parsed.number : null;
}

/** Are `a` and `b` one number? In E.164 when both read as one, else as digits. */
export function sameNumber(a: string, b: string): boolean {
  const [e164A, e164B] = [toE164(a), toE164(b)];
  return e164A !== null && e164B !== null ? e164A === e164B : digitsOf(a) === digitsOf(b);
}
