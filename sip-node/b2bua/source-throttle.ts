// New calls per second from one source address, bounded before any admission round trip: a
// whitelisted peer gone wild (a looping switch, a dialler storm) cannot flood the Worker. A token
// bucket per address: a second's worth of burst, refilled continuously.
//
// An INVITE whose final response was never acknowledged (no ACK to our error, none to our 200)
// costs its source a further second of budget: a real peer ACKs, so what does not is a dead peer
// or a spoofed source whose victim receives our answers. While a source owes for that, its new
// INVITEs are dropped in silence (a 503 would be one more reflected answer), so reflection
// through a whitelisted range dies out at under one answered INVITE per second per address.

/** Sources tracked at once; past it the oldest are forgotten (buckets that refilled first). */
const MAX_TRACKED_SOURCES = 100_000;
/** At most this many seconds of budget owed: a peer back from an outage is heard again soon. */
const MAX_DEBT_SECONDS = 30;

export type SourceVerdict = "call" | "busy" | "silent";

type Bucket = { tokens: number; at: number; owes: boolean };

export class SourceThrottle {
  private readonly perSecond: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(perSecond: number) {
    this.perSecond = perSecond;
  }

  /** Takes one new call from `source`; false when its bucket is empty. */
  allow(source: string, now = Date.now()): boolean {
    return this.take(source, now) === "call";
  }

  /**
   * Takes one new call from `source`: "call" when its bucket holds one, "busy" when it is empty
   * (answer 503), "silent" when it is empty because of unacknowledged answers (answer nothing).
   */
  take(source: string, now = Date.now()): SourceVerdict {
    const bucket = this.refilled(source, now);
    if (bucket.tokens < 1) return bucket.owes ? "silent" : "busy";
    bucket.owes = false;
    bucket.tokens -= 1;
    return "call";
  }

  /** An INVITE from `source` was answered and never acknowledged: a second of its budget is spent. */
  unacknowledged(source: string, now = Date.now()): void {
    const bucket = this.refilled(source, now);
    bucket.tokens = Math.max(bucket.tokens - this.perSecond, -this.perSecond * MAX_DEBT_SECONDS);
    bucket.owes = true;
  }

  private refilled(source: string, now: number): Bucket {
    let bucket = this.buckets.get(source);
    if (!bucket) {
      if (this.buckets.size >= MAX_TRACKED_SOURCES) this.forgetSome(now);
      bucket = { tokens: this.perSecond, at: now, owes: false };
      this.buckets.set(source, bucket);
    }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    return bucket;
  }

  /** Drops the sources whose buckets have refilled (they would start full anyway), else the oldest tenth. */
  private forgetSome(now: number): void {
    for (const [source, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.perSecond) this.buckets.delete(source);
    }
    if (this.buckets.size < MAX_TRACKED_SOURCES) return;
    let drop = Math.ceil(MAX_TRACKED_SOURCES / 10);
    for (const source of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(source);
    }
  }
}
