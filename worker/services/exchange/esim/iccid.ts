// eSIM identifiers: ICCIDs under the platform's issuer prefix ending in a Luhn check digit
// (ITU-T E.118), SM-DP+ matching ids, and the LPA activation string of SGP.22.

/** The Luhn check digit for a string of digits (the digit to append). */
export function luhnCheckDigit(payload: string): number {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = payload.charCodeAt(payload.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** True when the digits end in their Luhn check digit. */
export function passesLuhn(digits: string): boolean {
  return /^\d{2,}$/.test(digits) && luhnCheckDigit(digits.slice(0, -1)) === Number(digits.at(-1));
}

/** `count` uniformly random characters of `alphabet` (rejection sampling, no modulo bias). */
function randomChars(alphabet: string, count: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < count) {
    for (const b of crypto.getRandomValues(new Uint8Array(count * 2))) {
      if (b < limit && out.length < count) out += alphabet[b % alphabet.length];
    }
  }
  return out;
}

/** A new ICCID: issuer prefix, random serial, Luhn check digit; `length` digits in all. */
export function newIccid(issuerPrefix: string, length: 19 | 20): string {
  const payload = issuerPrefix + randomChars("0123456789", length - 1 - issuerPrefix.length);
  return payload + luhnCheckDigit(payload);
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A matching id as SM-DP+ servers issue them: 20 random uppercase alphanumerics in groups of five (~103 bits). */
export function newMatchingId(): string {
  return randomChars(ALPHANUMERIC, 20).replace(/(.{5})(?=.)/g, "$1-");
}

/** The activation code string (SGP.22 4.1): "LPA:1$<SM-DP+ address>$<matching id>". */
export const lpaOf = (smDpAddress: string, matchingId: string) => `LPA:1$${smDpAddress}$${matchingId}`;
