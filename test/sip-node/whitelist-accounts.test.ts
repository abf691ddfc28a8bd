// The node's copy of the whitelist names the account of a source: the admission goes to that
// account's call ledger alone. Ranges of one account merge; ranges of two accounts never do.
import { describe, expect, it } from "vitest";
import { parseCidr } from "../../schema/cidr.ts";
import { WhitelistFilter } from "../../sip-node/control/whitelist.ts";

const ALICE = "0b7c2d0e-0a6f-4c55-9d1e-4f8a1b2c3d4e";
const BOB = "9e8d7c6b-5a49-4382-8170-6f5e4d3c2b1a";

function range(cidr: string, customer_id?: string) {
  const parsed = parseCidr(cidr);
  if (!("start" in parsed)) throw new Error(parsed.problem);
  return { start: parsed.start, end: parsed.end, ...(customer_id ? { customer_id } : {}) };
}

describe("the node's whitelist copy", () => {
  it("names the account whose range holds a source, and none for a stranger", () => {
    const whitelist = new WhitelistFilter();
    whitelist.replace(1, [range("203.0.113.0/24", ALICE), range("198.51.100.7/32", BOB), range("2001:db8::/32", BOB)]);
    expect(whitelist.accountOf("203.0.113.77")).toBe(ALICE);
    expect(whitelist.accountOf("198.51.100.7")).toBe(BOB);
    expect(whitelist.accountOf("2001:db8::5")).toBe(BOB);
    expect(whitelist.accountOf("198.51.100.8")).toBeUndefined();
    expect(whitelist.contains("198.51.100.8")).toBe(false);
    expect(whitelist.contains("203.0.113.1")).toBe(true);
  });

  it("merges adjoining ranges of one account but keeps two accounts' neighbouring ranges apart", () => {
    const whitelist = new WhitelistFilter();
    whitelist.replace(2, [
      range("10.0.0.0/25", ALICE),
      range("10.0.0.0/24", ALICE),
      range("10.0.1.0/24", BOB),
      range("10.0.1.128/25", BOB),
    ]);
    expect(whitelist.accountOf("10.0.0.200")).toBe(ALICE);
    expect(whitelist.accountOf("10.0.1.0")).toBe(BOB);
    expect(whitelist.accountOf("10.0.1.200")).toBe(BOB);
    expect(whitelist.version).toBe(2);
  });

  it("never names the wrong account where another account's range overlaps (the Worker forbids it)", () => {
    const whitelist = new WhitelistFilter();
    // Bob's range from 10.3.0.128 to 10.3.1.255 crosses the end of Alice's 10.3.0.0/24.
    const crossing = { start: range("10.3.0.128/25").start, end: range("10.3.1.0/24").end, customer_id: BOB };
    whitelist.replace(3, [
      range("10.1.0.0/16", ALICE),
      range("10.1.5.0/24", BOB),
      range("10.2.0.0/16", BOB),
      range("10.3.0.0/24", ALICE),
      crossing,
    ]);
    expect(whitelist.accountOf("10.1.5.9")).toBe(ALICE); // the earlier range serves its own addresses
    expect(whitelist.accountOf("10.1.255.255")).toBe(ALICE);
    expect(whitelist.accountOf("10.2.0.0")).toBe(BOB); // adjoining, not merged into Alice's
    expect(whitelist.accountOf("10.3.0.200")).toBe(ALICE);
    expect(whitelist.accountOf("10.3.1.0")).toBe(BOB); // beyond Alice's end, Bob's range goes on
    expect(whitelist.accountOf("10.3.2.0")).toBeUndefined();
  });

  it("keeps admitting a source whose range came without an account (an older Worker)", () => {
    const whitelist = new WhitelistFilter();
    whitelist.replace(4, [range("192.0.2.0/24")]);
    expect(whitelist.contains("192.0.2.9")).toBe(true);
    expect(whitelist.accountOf("192.0.2.9")).toBeUndefined();
  });
});
