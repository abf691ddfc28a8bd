// The node's copy of the whitelist: merged address ranges (32 hex digits in IPv6 space, as the
// Worker sends them). A source outside every range is dropped before any work is done, so a
// scanner costs neither a response nor a round trip to the Worker.
import { ipToHex } from "../../schema/cidr.ts";
import type { WorkerClient } from "./worker-client.ts";

type Range = { start: string; end: string };

export class WhitelistFilter {
  version = -1;
  private ranges: Range[] = [];

  contains(address: string): boolean {
    const ip = ipToHex(address);
    if (!ip) return false;
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.ranges[mid]!;
      if (ip < r.start) hi = mid - 1;
      else if (ip > r.end) lo = mid + 1;
      else return true;
    }
    return false;
  }

  replace(version: number, ranges: Range[]): void {
    const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : 1));
    const merged: Range[] = [];
    for (const r of sorted) {
      const last = merged[merged.length - 1];
      if (last && r.start <= last.end) {
        if (r.end > last.end) last.end = r.end;
      } else merged.push({ ...r });
    }
    this.ranges = merged;
    this.version = version;
  }

  /** Asks the Worker for changes since the version held. */
  async refresh(worker: WorkerClient): Promise<void> {
    const snapshot = await worker.whitelist(this.version);
    if (snapshot.ranges) this.replace(snapshot.version, snapshot.ranges);
  }
}
