// Data allowances and validity: GB are binary (1 GB = 1024^3 bytes, as operators count data);
// -1 (unlimited) is kept as -1 bytes. Days left are whole days, rounded up, never below 0.

export const BYTES_PER_GB = 1024 ** 3;
export const UNLIMITED = -1;

export const bytesOfGb = (gb: number) => (gb < 0 ? UNLIMITED : Math.round(gb * BYTES_PER_GB));

/** Bytes left, -1 when unlimited. */
export const remainingBytes = (allowance: number, used: number) => (allowance < 0 ? UNLIMITED : Math.max(0, allowance - used));

export function daysLeft(expiresAt: string | null, now = Date.now()): number {
  if (!expiresAt) return 0;
  return Math.max(0, Math.ceil((Date.parse(expiresAt) - now) / 86_400_000));
}
