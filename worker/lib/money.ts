// Money is integer micro-dollars inside (1 USD = 1_000_000), USD numbers outside.
// Conversions parse decimal text exactly instead of multiplying floats.

export const MICROS_PER_USD = 1_000_000;

/** USD as the API shows it: a number rounded to the micro-dollar. */
export function toUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** Parses a USD amount given as a number or a decimal string, exactly, to micro-dollars. */
export function toMicros(usd: number | string): number {
  const text = typeof usd === "number" ? numberToPlainString(usd) : usd.trim();
  const match = /^(-)?(\d+)(?:\.(\d{0,6})\d*)?$/.exec(text);
  if (!match) throw new RangeError(`not a USD amount: ${String(usd)}`);
  const [, sign, whole, fraction = ""] = match;
  const micros = Number(whole) * MICROS_PER_USD + Number(fraction.padEnd(6, "0"));
  if (!Number.isSafeInteger(micros)) throw new RangeError(`USD amount out of range: ${String(usd)}`);
  return sign ? -micros : micros;
}

function numberToPlainString(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a USD amount: ${n}`);
  // toFixed(7) keeps one digit beyond the micro-dollar and never uses exponent notation.
  return n.toFixed(7);
}
