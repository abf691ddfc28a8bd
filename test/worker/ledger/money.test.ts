import { describe, expect, it } from "vitest";
import { toMicros, toUsd } from "../../../worker/lib/money.ts";

describe("money", () => {
  it("parses USD numbers and strings exactly to micro-dollars", () => {
    expect(toMicros(0.1)).toBe(100_000);
    expect(toMicros("0.1")).toBe(100_000);
    expect(toMicros(25)).toBe(25_000_000);
    expect(toMicros("10.005")).toBe(10_005_000);
    expect(toMicros(0.012)).toBe(12_000);
    expect(toMicros("-3.5")).toBe(-3_500_000);
    // Beyond the micro-dollar is cut, never rounded up.
    expect(toMicros("1.0000019")).toBe(1_000_001);
  });

  it("refuses what is not an amount", () => {
    for (const bad of ["", "abc", "1e3", "1,50", Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => toMicros(bad)).toThrow(RangeError);
    }
  });

  it("shows micro-dollars as USD numbers", () => {
    expect(toUsd(12_000)).toBe(0.012);
    expect(toUsd(5_000_000)).toBe(5);
  });
});
