// Keyed fixed-window counters: one Limiter instance per key (idFromName(key)), so limits
// for different IPs or e-mails never contend. Used for login and signup throttling,
// exports and exchange quotas. A Durable Object runs one call at a time, so a check
// and its increment cannot interleave with another request's.
import { DurableObject } from "cloudflare:workers";

export type LimitVerdict = { allowed: boolean; count: number; retryAfterSec: number };

type Window = { startedAtMs: number; count: number };

export class Limiter extends DurableObject {
  /** Counts one event and says whether it was within `limit` per `windowSec`. */
  async hit(limit: number, windowSec: number): Promise<LimitVerdict> {
    const window = await this.current(windowSec);
    if (window.count >= limit) return this.refused(window, windowSec);
    window.count += 1;
    await this.ctx.storage.put("window", window);
    return { allowed: true, count: window.count, retryAfterSec: 0 };
  }

  /** Says whether the count has reached `limit`, without counting. */
  async check(limit: number, windowSec: number): Promise<LimitVerdict> {
    const window = await this.current(windowSec);
    if (window.count >= limit) return this.refused(window, windowSec);
    return { allowed: true, count: window.count, retryAfterSec: 0 };
  }

  /** Takes back one counted event of the current window (an attempt counted up front that turned out not to count). */
  async release(windowSec: number): Promise<void> {
    const window = await this.current(windowSec);
    if (window.count === 0) return;
    window.count -= 1;
    await this.ctx.storage.put("window", window);
  }

  async reset(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private async current(windowSec: number): Promise<Window> {
    const now = Date.now();
    const stored = await this.ctx.storage.get<Window>("window");
    if (stored && now - stored.startedAtMs < windowSec * 1000) return stored;
    return { startedAtMs: now, count: 0 };
  }

  private refused(window: Window, windowSec: number): LimitVerdict {
    const retryAfterSec = Math.ceil((window.startedAtMs + windowSec * 1000 - Date.now()) / 1000);
    return { allowed: false, count: window.count, retryAfterSec: Math.max(1, retryAfterSec) };
  }
}
