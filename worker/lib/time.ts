// Timestamps are ISO 8601 UTC with milliseconds everywhere: in D1, in responses, in tokens' logs.

export const toIso = (date: Date | number): string => new Date(date).toISOString();
export const nowIso = (): string => new Date().toISOString();
export const nowSec = (): number => Math.floor(Date.now() / 1000);
export const addSeconds = (iso: string, seconds: number): string => new Date(Date.parse(iso) + seconds * 1000).toISOString();
export const addDays = (iso: string, days: number): string => addSeconds(iso, days * 86_400);
/** Whole seconds since the epoch, for comparisons at one-second resolution (JWT iat). */
export const isoToSec = (iso: string): number => Math.floor(Date.parse(iso) / 1000);
