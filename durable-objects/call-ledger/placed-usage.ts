// The daily caps of calls the platform places for an account (test, verification and web-dialer
// calls), kept in its AccountLedger's storage (table placed_usage, a row per UTC day): how many
// were placed, counted as a test call is asked for or a dialer call admitted, and their talk
// seconds, counted as each ends. The ledger runs one request at a time, so a check and its count
// cannot interleave with another's.
import type { PlacedCallCaps, PlacedCallVerdict } from "./types.ts";

type Usage = { calls: number; seconds: number };

export class PlacedUsage {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** Counts one placed call of today, unless a cap is reached. */
  take(now: string, caps: PlacedCallCaps): PlacedCallVerdict {
    const left = this.secondsLeft(now, caps);
    if (!left.allowed) return left;
    if (this.of(now).calls >= caps.calls) return { allowed: false, cap: "calls", retryAfterSec: secondsToNextDay(now) };
    this.sql.exec(
      "INSERT INTO placed_usage (day, calls) VALUES (?, 1) ON CONFLICT (day) DO UPDATE SET calls = calls + 1",
      now.slice(0, 10),
    );
    return { allowed: true };
  }

  /** Allowed while today's talk seconds are under the cap. */
  secondsLeft(now: string, caps: PlacedCallCaps): PlacedCallVerdict {
    if (this.of(now).seconds < caps.seconds) return { allowed: true };
    return { allowed: false, cap: "minutes", retryAfterSec: secondsToNextDay(now) };
  }

  /** How long a placed call admitted now may last: the day's seconds left, within `capSeconds`. */
  lengthAllowed(now: string, caps: PlacedCallCaps, capSeconds: number): number {
    return Math.min(capSeconds, caps.seconds - this.of(now).seconds);
  }

  /** The talk time of a placed call (origin test or dialer) that ended, on the day it ended. */
  countTalk(origin: unknown, talkSeconds: number, at: string): void {
    if ((origin !== "test" && origin !== "dialer") || talkSeconds <= 0) return;
    this.sql.exec(
      "INSERT INTO placed_usage (day, seconds) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET seconds = seconds + excluded.seconds",
      at.slice(0, 10),
      Math.ceil(talkSeconds),
    );
  }

  private of(now: string): Usage {
    return (
      this.sql.exec<Usage>("SELECT calls, seconds FROM placed_usage WHERE day = ?", now.slice(0, 10)).toArray()[0] ?? {
        calls: 0,
        seconds: 0,
      }
    );
  }
}

/** Seconds from `now` to the next midnight UTC, when the day's caps start again. */
function secondsToNextDay(now: string): number {
  const next = Date.parse(`${now.slice(0, 10)}T00:00:00.000Z`) + 86_400_000;
  return Math.max(1, Math.ceil((next - Date.parse(now)) / 1000));
}
