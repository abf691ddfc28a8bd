// The arithmetic of call billing, apart from storage: what an admission may reserve and
// what a finished call costs. Money is integer micro-dollars; rates are per minute.
import type { AdmissionAccount } from "./admission.ts";

/** The price of some seconds at a per-minute rate, rounded up to the micro-dollar. */
export const chargeFor = (seconds: number, ratePerMinuteMicros: number): number => Math.ceil((seconds * ratePerMinuteMicros) / 60);

/** How many whole seconds an amount of money buys at a per-minute rate. */
export const secondsFor = (micros: number, ratePerMinuteMicros: number): number =>
  ratePerMinuteMicros <= 0 ? Number.POSITIVE_INFINITY : Math.floor((micros * 60) / ratePerMinuteMicros);

export type Terms = {
  ratePerMinuteMicros: number;
  minBillableSeconds: number;
  /** Longest call the platform carries, whatever the credit. */
  capSeconds: number;
};

export type FreeSeconds = { pilot: number; included: number };

/** What an admitted call holds until it ends: free seconds of each kind, and paid seconds backed by money. */
export type Reservation = {
  pilotSeconds: number;
  includedSeconds: number;
  paidSeconds: number;
  reservedMicros: number;
  maxCallSeconds: number;
};

/**
 * Reserves the longest call the free seconds and the available money allow, up to the cap.
 * Null when not even the minimum billable length is covered.
 */
export function reserve(terms: Terms, free: FreeSeconds, availableMicros: number): Reservation | null {
  const pilotSeconds = Math.min(free.pilot, terms.capSeconds);
  const includedSeconds = Math.min(free.included, terms.capSeconds - pilotSeconds);
  const freeSeconds = pilotSeconds + includedSeconds;
  const paidSeconds = Math.min(terms.capSeconds - freeSeconds, secondsFor(Math.max(0, availableMicros), terms.ratePerMinuteMicros));
  const maxCallSeconds = freeSeconds + paidSeconds;
  if (maxCallSeconds < Math.min(terms.minBillableSeconds, terms.capSeconds) || maxCallSeconds <= 0) return null;
  return { pilotSeconds, includedSeconds, paidSeconds, reservedMicros: chargeFor(paidSeconds, terms.ratePerMinuteMicros), maxCallSeconds };
}

export type Settlement = {
  billsec: number;
  waivedSeconds: number;
  includedSeconds: number;
  paidSeconds: number;
  chargedMicros: number;
  waivedMicros: number;
};

/**
 * A finished call: billed for at least the minimum billable seconds once answered, never
 * beyond what it reserved (so the charge never exceeds the money set aside). Pilot seconds
 * are used first (waived), then included minutes, then money.
 */
export function settle(terms: Terms, reservation: Reservation, answeredSeconds: number): Settlement {
  if (answeredSeconds <= 0) {
    return { billsec: 0, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 0, chargedMicros: 0, waivedMicros: 0 };
  }
  const billsec = Math.min(Math.max(Math.ceil(answeredSeconds), terms.minBillableSeconds), reservation.maxCallSeconds);
  const waivedSeconds = Math.min(billsec, reservation.pilotSeconds);
  const includedSeconds = Math.min(billsec - waivedSeconds, reservation.includedSeconds);
  const paidSeconds = billsec - waivedSeconds - includedSeconds;
  return {
    billsec,
    waivedSeconds,
    includedSeconds,
    paidSeconds,
    chargedMicros: Math.min(chargeFor(paidSeconds, terms.ratePerMinuteMicros), reservation.reservedMicros),
    waivedMicros: chargeFor(waivedSeconds, terms.ratePerMinuteMicros),
  };
}

/** Seconds of talk the account can still give: its free seconds and what its available money buys. */
export const poolSeconds = (ratePerMinuteMicros: number, free: FreeSeconds, availableMicros: number): number =>
  free.pilot + free.included + secondsFor(Math.max(0, availableMicros), ratePerMinuteMicros);

/**
 * A call's next slice of credit: its fair share of what the account can still give (split among
 * the ports that may still take a call, this one included), at most `sliceSeconds` and never past
 * the cap. Concurrent calls thus share a small balance instead of the first one taking it all.
 */
export const sliceLength = (pool: number, sharers: number, sliceSeconds: number, capLeft: number): number =>
  Math.max(0, Math.min(sliceSeconds, capLeft, Math.floor(pool / Math.max(1, sharers))));

/** `seconds` more talk for a call: pilot seconds first, then included minutes, then money. */
export function grantSlice(ratePerMinuteMicros: number, free: FreeSeconds, seconds: number): Reservation {
  const pilotSeconds = Math.min(free.pilot, seconds);
  const includedSeconds = Math.min(free.included, seconds - pilotSeconds);
  const paidSeconds = seconds - pilotSeconds - includedSeconds;
  return {
    pilotSeconds,
    includedSeconds,
    paidSeconds,
    reservedMicros: chargeFor(paidSeconds, ratePerMinuteMicros),
    maxCallSeconds: seconds,
  };
}

/** A reservation grown by another slice. */
export const addReservations = (a: Reservation, b: Reservation): Reservation => ({
  pilotSeconds: a.pilotSeconds + b.pilotSeconds,
  includedSeconds: a.includedSeconds + b.includedSeconds,
  paidSeconds: a.paidSeconds + b.paidSeconds,
  reservedMicros: a.reservedMicros + b.reservedMicros,
  maxCallSeconds: a.maxCallSeconds + b.maxCallSeconds,
});

/** Pilot seconds (while the pilot runs) and included seconds left, less what live calls hold. */
export function freeSeconds(
  account: Pick<AdmissionAccount, "pilotEndsAt" | "pilotMinutesLimit" | "includedMinutes">,
  used: { cycle_seconds_used: number; pilot_seconds_used: number },
  held: { pilot_seconds: number; included_seconds: number },
  now: string,
): FreeSeconds {
  const pilotRunning = account.pilotEndsAt !== null && account.pilotEndsAt > now;
  const pilot =
    pilotRunning && account.pilotMinutesLimit !== null ? account.pilotMinutesLimit * 60 - used.pilot_seconds_used - held.pilot_seconds : 0;
  const included = account.includedMinutes === null ? 0 : account.includedMinutes * 60 - used.cycle_seconds_used - held.included_seconds;
  return { pilot: Math.max(0, pilot), included: Math.max(0, included) };
}
