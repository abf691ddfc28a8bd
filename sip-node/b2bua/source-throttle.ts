// New calls per second from one source address, bounded before any admission round trip: a
// whitelisted peer gone wild (a looping switch, a dialler storm) cannot flood the Worker. A token
// bucket per address: a second's worth of burst, refilled continuously.

const MAX_TRACKED_SOURCES = 10_000;

export class SourceThrottle {
  private readonly perSecond: number;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perSecond: number) {
    this.perSecond = perSecond;
  }

  /** Takes one new call from `source`; false when its bucket is empty. */
  allow(source: string, now = Date.now()): boolean {
    let bucket = this.buckets.get(source);
    if (!bucket) {
      if (this.buckets.size >= MAX_TRACKED_SOURCES) this.forgetFull(now);
      bucket = { tokens: this.perSecond, at: now };
      this.buckets.set(source, bucket);
    }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Drops the sources whose buckets have refilled: they would start full anyway. */
  private forgetFull(now: number): void {
    for (const [source, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.perSecond) this.buckets.delete(source);
    }
    if (this.buckets.size >= MAX_TRACKED_SOURCES) this.buckets.clear();
  }
}
