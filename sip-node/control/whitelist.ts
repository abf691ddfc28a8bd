// The node's copy of the whitelist: merged address ranges (32 hex digits in IPv6 space, as the
// Worker sends them), each with the account it belongs to. A source outside every range is
// dropped before any work is done, so a scanner costs neither a response nor a round trip to the
// Worker; a source inside one names the account whose ledger alone answers the admission.
import { ipToHex } from "../../schema/cidr.ts";
import type { WorkerClient } from "./worker-client.ts";

type Range = { start: string; end: string; customer_id?: string | undefined };
/** A range whose account has not proven control yet, and the code that proves it. */
type Proof = { start: string; end: string; code: string };

export class WhitelistFilter {
  version = -1;
  private ranges: Range[] = [];
  private proofs: Proof[] = [];

  contains(address: string): boolean {
    return this.rangeOf(address) !== undefined;
  }

  /** The account whose range holds `address` (ranges of different accounts never overlap); undefined when none, or unknown. */
  accountOf(address: string): string | undefined {
    return this.rangeOf(address)?.customer_id;
  }

  /**
   * The proof codes of the unproven entries holding `address` (issue 20, finding 4): our answer to
   * an OPTIONS from it carries them, and only a party receiving at that address reads them. Few
   * entries await proof at a time, so a scan is enough.
   */
  proofCodesFor(address: string): string[] {
    if (this.proofs.length === 0) return [];
    const ip = ipToHex(address);
    if (!ip) return [];
    return this.proofs.filter((p) => p.start <= ip && ip <= p.end).map((p) => p.code);
  }

  private rangeOf(address: string): Range | undefined {
    const ip = ipToHex(address);
    if (!ip) return undefined;
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.ranges[mid]!;
      if (ip < r.start) hi = mid - 1;
      else if (ip > r.end) lo = mid + 1;
      else return r;
    }
    return undefined;
  }

  /**
   * Sorted and merged where ranges of the same account touch or overlap. Ranges of different
   * accounts are kept apart (the Worker never lets them overlap; if it ever did, the overlap
   * would be served by the earlier range and no account named wrongly by a merge).
   */
  replace(version: number, ranges: Range[], proofs: Proof[] = []): void {
    this.proofs = proofs.map((p) => ({ ...p }));
    const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    const merged: Range[] = [];
    for (const r of sorted) {
      const last = merged[merged.length - 1];
      if (last && r.start <= last.end && r.customer_id === last.customer_id) {
        if (r.end > last.end) last.end = r.end;
      } else if (last && r.start <= last.end) {
        // Another account's range inside or across this one: only its part beyond is kept.
        if (r.end > last.end) merged.push({ ...r, start: successor(last.end) });
      } else merged.push({ ...r });
    }
    this.ranges = merged;
    this.version = version;
  }

  /** Asks the Worker for changes since the version held. */
  async refresh(worker: Pick<WorkerClient, "whitelist">): Promise<void> {
    const snapshot = await worker.whitelist(this.version);
    if (snapshot.ranges) this.replace(snapshot.version, snapshot.ranges, snapshot.proofs ?? []);
  }
}

/** The next address after `hex` (32 hex digits), for a range cut to start after another. */
function successor(hex: string): string {
  return (BigInt(`0x${hex}`) + 1n).toString(16).padStart(32, "0");
}
