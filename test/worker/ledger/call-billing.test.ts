// The arithmetic of call billing, case by case: what an admission reserves (pilot seconds, then
// included minutes, then money, up to the cap) and what a finished call is charged.
import { describe, expect, it } from "vitest";
import {
  reserve,
  settle,
  type FreeSeconds,
  type Reservation,
  type Settlement,
  type Terms,
} from "../../../durable-objects/call-ledger/billing.ts";

/** $0.012 a minute (200 micro-dollars a second), billed at least a minute, four hours at most. */
const PAYG: Terms = { ratePerMinuteMicros: 12_000, minBillableSeconds: 60, capSeconds: 14_400 };
const NONE: FreeSeconds = { pilot: 0, included: 0 };

type ReserveCase = { name: string; terms?: Terms; free?: FreeSeconds; available: number; expected: Reservation | null };

const reserveCases: ReserveCase[] = [
  {
    name: "takes pilot seconds first, then included minutes, then money for the rest up to the cap",
    terms: { ...PAYG, capSeconds: 600 },
    free: { pilot: 100, included: 200 },
    available: 1_000_000,
    expected: { pilotSeconds: 100, includedSeconds: 200, paidSeconds: 300, reservedMicros: 60_000, maxCallSeconds: 600 },
  },
  {
    name: "gives included minutes only what the pilot leaves under the cap",
    terms: { ...PAYG, capSeconds: 600 },
    free: { pilot: 500, included: 500 },
    available: 1_000_000,
    expected: { pilotSeconds: 500, includedSeconds: 100, paidSeconds: 0, reservedMicros: 0, maxCallSeconds: 600 },
  },
  {
    name: "cuts pilot seconds beyond the cap to the cap, and sets no money aside",
    free: { pilot: 20_000, included: 600 },
    available: 1_000_000,
    expected: { pilotSeconds: 14_400, includedSeconds: 0, paidSeconds: 0, reservedMicros: 0, maxCallSeconds: 14_400 },
  },
  {
    name: "admits on free seconds alone with no money",
    free: { pilot: 0, included: 120 },
    available: 0,
    expected: { pilotSeconds: 0, includedSeconds: 120, paidSeconds: 0, reservedMicros: 0, maxCallSeconds: 120 },
  },
  {
    name: "caps a call the money could make longer",
    available: 100_000_000,
    expected: { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 14_400, reservedMicros: 2_880_000, maxCallSeconds: 14_400 },
  },
  {
    name: "buys whole seconds only: $0.012345 buys 61 s at $0.012/min, and sets aside their price",
    available: 12_345,
    expected: { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 61, reservedMicros: 12_200, maxCallSeconds: 61 },
  },
  {
    name: "rounds the money set aside up to the micro-dollar (61 s at 1,001 micro-dollars/min is 1,017.68)",
    terms: { ratePerMinuteMicros: 1_001, minBillableSeconds: 60, capSeconds: 61 },
    available: 1_000_000,
    expected: { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 61, reservedMicros: 1_018, maxCallSeconds: 61 },
  },
  {
    name: "admits exactly the minimum billable length",
    available: 12_000,
    expected: { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 60, reservedMicros: 12_000, maxCallSeconds: 60 },
  },
  {
    name: "counts free seconds toward the minimum billable length",
    free: { pilot: 30, included: 0 },
    available: 6_000,
    expected: { pilotSeconds: 30, includedSeconds: 0, paidSeconds: 30, reservedMicros: 6_000, maxCallSeconds: 60 },
  },
  { name: "refuses (null) when the money buys less than the minimum billable length", available: 11_999, expected: null },
  { name: "refuses (null) with no credit and no free seconds", available: 0, expected: null },
  { name: "refuses (null) with a negative available balance and no free seconds", available: -5_000, expected: null },
  {
    name: "treats a negative available balance as none, leaving the free seconds",
    free: { pilot: 90, included: 0 },
    available: -5_000,
    expected: { pilotSeconds: 90, includedSeconds: 0, paidSeconds: 0, reservedMicros: 0, maxCallSeconds: 90 },
  },
  {
    name: "lets the cap stand in for a minimum billable length longer than the cap",
    terms: { ...PAYG, minBillableSeconds: 60, capSeconds: 30 },
    available: 1_000_000,
    expected: { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 30, reservedMicros: 6_000, maxCallSeconds: 30 },
  },
  {
    name: "carries a free rate up to the cap with nothing set aside",
    terms: { ...PAYG, ratePerMinuteMicros: 0 },
    available: 0,
    expected: { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 14_400, reservedMicros: 0, maxCallSeconds: 14_400 },
  },
];

describe("reserve", () => {
  it.each(reserveCases)("$name", ({ terms = PAYG, free = NONE, available, expected }) => {
    expect(reserve(terms, free, available)).toEqual(expected);
  });
});

/** A reservation of paid seconds only, priced at PAYG. */
const paid = (seconds: number): Reservation => ({
  pilotSeconds: 0,
  includedSeconds: 0,
  paidSeconds: seconds,
  reservedMicros: seconds * 200,
  maxCallSeconds: seconds,
});

const NOTHING: Settlement = { billsec: 0, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 0, chargedMicros: 0, waivedMicros: 0 };

type SettleCase = { name: string; terms?: Terms; reservation: Reservation; answered: number; expected: Settlement };

const settleCases: SettleCase[] = [
  { name: "bills nothing for zero answered seconds", reservation: paid(14_400), answered: 0, expected: NOTHING },
  { name: "bills nothing for a negative answered time", reservation: paid(14_400), answered: -3, expected: NOTHING },
  {
    name: "bills nothing for zero answered seconds even when free seconds were set aside",
    reservation: { pilotSeconds: 60, includedSeconds: 60, paidSeconds: 60, reservedMicros: 12_000, maxCallSeconds: 180 },
    answered: 0,
    expected: NOTHING,
  },
  {
    name: "bills an answered call the minimum billable seconds",
    reservation: paid(14_400),
    answered: 4,
    expected: { billsec: 60, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 60, chargedMicros: 12_000, waivedMicros: 0 },
  },
  {
    name: "bills past the minimum by the second, a started second counting whole",
    reservation: paid(14_400),
    answered: 60.2,
    expected: { billsec: 61, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 61, chargedMicros: 12_200, waivedMicros: 0 },
  },
  {
    name: "uses pilot seconds first (waived), then included minutes, then money",
    reservation: { pilotSeconds: 60, includedSeconds: 60, paidSeconds: 600, reservedMicros: 120_000, maxCallSeconds: 720 },
    answered: 150,
    expected: { billsec: 150, waivedSeconds: 60, includedSeconds: 60, paidSeconds: 30, chargedMicros: 6_000, waivedMicros: 12_000 },
  },
  {
    name: "charges no money while included minutes last",
    reservation: { pilotSeconds: 0, includedSeconds: 300, paidSeconds: 600, reservedMicros: 120_000, maxCallSeconds: 900 },
    answered: 200,
    expected: { billsec: 200, waivedSeconds: 0, includedSeconds: 200, paidSeconds: 0, chargedMicros: 0, waivedMicros: 0 },
  },
  {
    name: "waives the minimum billable seconds of a short call inside the pilot, priced at the rate",
    reservation: { pilotSeconds: 600, includedSeconds: 0, paidSeconds: 0, reservedMicros: 0, maxCallSeconds: 600 },
    answered: 10,
    expected: { billsec: 60, waivedSeconds: 60, includedSeconds: 0, paidSeconds: 0, chargedMicros: 0, waivedMicros: 12_000 },
  },
  {
    name: "stops billing at the reservation's longest call",
    reservation: paid(600),
    answered: 1_100,
    expected: { billsec: 600, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 600, chargedMicros: 120_000, waivedMicros: 0 },
  },
  {
    name: "bills a call shorter than the minimum no more than the reservation held (cap below the minimum)",
    terms: { ...PAYG, capSeconds: 30 },
    reservation: paid(30),
    answered: 5,
    expected: { billsec: 30, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 30, chargedMicros: 6_000, waivedMicros: 0 },
  },
  {
    name: "rounds the charge up to the micro-dollar (61 s at 1,001 micro-dollars/min is 1,017.68)",
    terms: { ratePerMinuteMicros: 1_001, minBillableSeconds: 60, capSeconds: 14_400 },
    reservation: { pilotSeconds: 0, includedSeconds: 0, paidSeconds: 600, reservedMicros: 10_010, maxCallSeconds: 600 },
    answered: 61,
    expected: { billsec: 61, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 61, chargedMicros: 1_018, waivedMicros: 0 },
  },
  {
    name: "rounds the waived amount up to the micro-dollar too",
    terms: { ratePerMinuteMicros: 1_001, minBillableSeconds: 1, capSeconds: 14_400 },
    reservation: { pilotSeconds: 600, includedSeconds: 0, paidSeconds: 0, reservedMicros: 0, maxCallSeconds: 600 },
    answered: 1,
    expected: { billsec: 1, waivedSeconds: 1, includedSeconds: 0, paidSeconds: 0, chargedMicros: 0, waivedMicros: 17 },
  },
  {
    name: "never charges above the money set aside, even when that is less than the seconds' price",
    reservation: { ...paid(100), reservedMicros: 10_000 },
    answered: 100,
    expected: { billsec: 100, waivedSeconds: 0, includedSeconds: 0, paidSeconds: 100, chargedMicros: 10_000, waivedMicros: 0 },
  },
];

describe("settle", () => {
  it.each(settleCases)("$name", ({ terms = PAYG, reservation, answered, expected }) => {
    expect(settle(terms, reservation, answered)).toEqual(expected);
  });
});

describe("reserve then settle", () => {
  // Odd rates, so that rounding is at work; every mix of free seconds; balances around the minimum.
  const rates = [0, 1, 1_001, 7_777, 12_000, 999_999];
  const frees: FreeSeconds[] = [NONE, { pilot: 45, included: 0 }, { pilot: 0, included: 90 }, { pilot: 20, included: 50 }];
  const balances = [-1, 0, 1, 11_999, 12_000, 123_457, 5_000_000];
  const answers = [0, 0.5, 1, 59, 60, 61.1, 599, 5_000, 20_000];

  it("sets aside no more than the available money, and charges no more than it set aside", () => {
    let checked = 0;
    for (const ratePerMinuteMicros of rates)
      for (const free of frees)
        for (const available of balances) {
          const terms = { ratePerMinuteMicros, minBillableSeconds: 60, capSeconds: 3_600 };
          const reservation = reserve(terms, free, available);
          if (!reservation) continue;
          const label = JSON.stringify({ terms, free, available });
          expect(reservation.reservedMicros, label).toBeLessThanOrEqual(Math.max(0, available));
          expect(reservation.maxCallSeconds, label).toBeLessThanOrEqual(terms.capSeconds);
          for (const answered of answers) {
            const bill = settle(terms, reservation, answered);
            expect(bill.chargedMicros, `${label} answered ${answered}`).toBeLessThanOrEqual(reservation.reservedMicros);
            expect(bill.billsec, `${label} answered ${answered}`).toBeLessThanOrEqual(reservation.maxCallSeconds);
            expect(bill.waivedSeconds + bill.includedSeconds + bill.paidSeconds).toBe(bill.billsec);
            checked++;
          }
        }
    expect(checked).toBeGreaterThan(500);
  });
});
