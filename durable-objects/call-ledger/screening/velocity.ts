// The velocity rules of a carrier call's screening, counted in the ledger instance's memory (no
// storage, no request): calls per minute, concurrent calls, distinct numbers dialled per hour,
// sequential dialling and the share of short calls, each per caller ID, dialled prefix or source
// as the rule's scope says. The ledger runs one call at a time, so the counts are exact; an
// instance evicted (idle) starts them again, except concurrent calls, read from the live calls.
import { digitsOf } from "../../../schema/numbers.ts";
import type { RuleSetting, ScreeningFlag, ScreeningSettings, VelocityRule, VelocityScope } from "../../../schema/screening.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** How often stale keys are forgotten (by call time). */
const SWEEP_EVERY_MS = MINUTE_MS;

/** What the velocity rules know of a call. */
export type VelocityCall = {
  /** The caller ID in E.164 when it reads as a number, else its digits; null when withheld. */
  caller: string | null;
  source: string;
  dialledDigits: string;
  /** The dialled number's country code and first 3 national digits (the dialled_prefix scope without a prefix). */
  dialledPrefix: string;
  atMs: number;
};

/** A rule's counting key: what it counts by, and the value ("+14155550100", "203.0.113.7", "4420"). */
export type VelocityKey = { scope: VelocityScope; value: string; id: string };

/** One velocity rule broken by a call: its flag and the key it was counted under. */
export type VelocityHit = { flag: ScreeningFlag; rule: VelocityRule; key: VelocityKey };

/** The key a rule counts the call under, or null when the rule does not count it (its prefix, no caller ID). */
export function keyOf(setting: RuleSetting, call: Omit<VelocityCall, "atMs">): VelocityKey | null {
  const prefix = setting.prefix ? digitsOf(setting.prefix) : null;
  if (prefix && !call.dialledDigits.startsWith(prefix)) return null;
  const scope = setting.scope ?? "caller_id";
  const value = scope === "caller_id" ? call.caller : scope === "source" ? call.source : (prefix ?? call.dialledPrefix);
  return value ? { scope, value, id: `${scope}:${value}` } : null;
}

/** Times in order, oldest dropped from the front without moving the rest each time. */
class Window<T extends { atMs: number }> {
  items: T[] = [];
  head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  newest(): T | undefined {
    return this.items[this.items.length - 1];
  }

  /** Drops what is at or before `cutoffMs`, handing each to `dropped`. */
  prune(cutoffMs: number, dropped?: (item: T) => void): void {
    while (this.head < this.items.length && this.items[this.head]!.atMs <= cutoffMs) dropped?.(this.items[this.head++]!);
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

type Run = { last: number; length: number; atMs: number };
type Ends = { window: Window<{ atMs: number; short: boolean }>; short: number };
type Live = { setting: RuleSetting; keys: Map<string, string | null>; counts: Map<string, number> };

/** A live call as the concurrent count is seeded from (the ledger's active calls). */
export type LiveCallKeys = { callId: string; call: Omit<VelocityCall, "atMs"> };

export class VelocityCounters {
  private readonly minute = new Map<string, Window<{ atMs: number }>>();
  private readonly dialled = new Map<string, Map<string, number>>();
  private readonly runs = new Map<string, Run>();
  private readonly ends = new Map<string, Ends>();
  private live: Live | null = null;
  private sweptAtMs = 0;
  /** The live calls with what the rules know of them, read once per settings (the concurrent count's seed). */
  private readonly liveCalls: () => LiveCallKeys[];

  constructor(liveCalls: () => LiveCallKeys[]) {
    this.liveCalls = liveCalls;
  }

  /** Counts the call under every velocity rule that is on, and returns the rules it breaks. */
  count(settings: ScreeningSettings, call: VelocityCall): VelocityHit[] {
    this.sweep(call.atMs);
    // Seeded before the call is placed, so the seed never holds the call itself.
    this.liveIndex(settings);
    const hits: VelocityHit[] = [];
    const check = (rule: VelocityRule, measure: (setting: RuleSetting, key: VelocityKey) => string | null) => {
      const setting = settings[rule];
      if (setting.action === "off") return;
      const key = keyOf(setting, call);
      if (!key) return;
      const detail = measure(setting, key);
      if (detail) hits.push({ rule, key, flag: { rule, detail, action: setting.action } });
    };
    check("calls_per_minute", (s, k) => this.perMinute(s, k, call));
    check("concurrent_calls", (s, k) => this.concurrent(s, k));
    check("distinct_numbers_per_hour", (s, k) => this.distinct(s, k, call));
    check("sequential_dialling", (s, k) => this.sequential(s, k, call));
    check("short_call_share", (s, k) => this.shortShare(s, k, call));
    return hits;
  }

  /** The call was admitted: it counts among the live calls until it ends. */
  admitted(settings: ScreeningSettings, callId: string, call: VelocityCall): void {
    const live = this.liveIndex(settings);
    if (!live) return;
    const key = keyOf(live.setting, call)?.id ?? null;
    live.keys.set(callId, key);
    if (key) live.counts.set(key, (live.counts.get(key) ?? 0) + 1);
  }

  /** The call ended after `seconds` from its admission: out of the live calls, into the short-call share. */
  ended(settings: ScreeningSettings, callId: string, call: VelocityCall, seconds: number): void {
    const key = this.live?.keys.get(callId);
    if (this.live && key !== undefined) {
      this.live.keys.delete(callId);
      if (key) this.live.counts.set(key, Math.max(0, (this.live.counts.get(key) ?? 1) - 1));
    }
    const setting = settings.short_call_share;
    if (setting.action === "off") return;
    const shareKey = keyOf(setting, call);
    if (!shareKey) return;
    const ends = this.ends.get(shareKey.id) ?? { window: new Window(), short: 0 };
    this.ends.set(shareKey.id, ends);
    const short = seconds < (setting.short_seconds ?? 6);
    ends.window.items.push({ atMs: call.atMs, short });
    if (short) ends.short++;
  }

  private perMinute(setting: RuleSetting, key: VelocityKey, call: VelocityCall): string | null {
    const window = this.minute.get(key.id) ?? new Window();
    this.minute.set(key.id, window);
    window.prune(call.atMs - MINUTE_MS);
    window.items.push({ atMs: call.atMs });
    return window.size > threshold(setting) ? `${window.size} calls in a minute from ${describe(key)}` : null;
  }

  private concurrent(setting: RuleSetting, key: VelocityKey): string | null {
    const calls = (this.live?.counts.get(key.id) ?? 0) + 1;
    return calls > threshold(setting) ? `${calls} calls at once from ${describe(key)}` : null;
  }

  private distinct(setting: RuleSetting, key: VelocityKey, call: VelocityCall): string | null {
    const seen = this.dialled.get(key.id) ?? new Map<string, number>();
    this.dialled.set(key.id, seen);
    // Re-inserted, so the map stays in order of last use and the stale ones are at its front.
    seen.delete(call.dialledDigits);
    seen.set(call.dialledDigits, call.atMs);
    for (const [number, atMs] of seen) {
      if (atMs > call.atMs - HOUR_MS) break;
      seen.delete(number);
    }
    return seen.size > threshold(setting) ? `${seen.size} distinct numbers dialled in an hour from ${describe(key)}` : null;
  }

  /** A run: each number one more than the one before (a repeat leaves it as it is), within an hour. */
  private sequential(setting: RuleSetting, key: VelocityKey, call: VelocityCall): string | null {
    const number = call.dialledDigits.length > 0 && call.dialledDigits.length <= 15 ? Number(call.dialledDigits) : NaN;
    const run = this.runs.get(key.id);
    const recent = run !== undefined && call.atMs - run.atMs < HOUR_MS;
    const length = !recent || Number.isNaN(number) ? 1 : number === run.last + 1 ? run.length + 1 : number === run.last ? run.length : 1;
    this.runs.set(key.id, { last: number, length, atMs: call.atMs });
    return length > threshold(setting) ? `${length} consecutive numbers dialled from ${describe(key)}` : null;
  }

  private shortShare(setting: RuleSetting, key: VelocityKey, call: VelocityCall): string | null {
    const ends = this.ends.get(key.id);
    if (!ends) return null;
    ends.window.prune(call.atMs - HOUR_MS, (dropped) => dropped.short && ends.short--);
    const total = ends.window.size;
    if (total < (setting.min_calls ?? 20)) return null;
    const percent = Math.round((ends.short * 100) / total);
    return percent > threshold(setting)
      ? `${percent}% of the last hour's ${total} calls from ${describe(key)} ended within ${setting.short_seconds ?? 6} seconds`
      : null;
  }

  /** The live calls counted by the concurrent rule's key, rebuilt when its setting changed. */
  private liveIndex(settings: ScreeningSettings): Live | null {
    const setting = settings.concurrent_calls;
    if (setting.action === "off") {
      this.live = null;
      return null;
    }
    if (this.live?.setting === setting) return this.live;
    const live: Live = { setting, keys: new Map(), counts: new Map() };
    for (const { callId, call } of this.liveCalls()) {
      const key = keyOf(setting, call)?.id ?? null;
      live.keys.set(callId, key);
      if (key) live.counts.set(key, (live.counts.get(key) ?? 0) + 1);
    }
    this.live = live;
    return live;
  }

  /** Forgets keys with nothing left in their window, once a minute of call time. */
  private sweep(nowMs: number): void {
    if (nowMs - this.sweptAtMs < SWEEP_EVERY_MS) return;
    this.sweptAtMs = nowMs;
    for (const [id, window] of this.minute) if ((window.newest()?.atMs ?? 0) <= nowMs - MINUTE_MS) this.minute.delete(id);
    for (const [id, seen] of this.dialled) if (newestOf(seen) <= nowMs - HOUR_MS) this.dialled.delete(id);
    for (const [id, run] of this.runs) if (run.atMs <= nowMs - HOUR_MS) this.runs.delete(id);
    for (const [id, ends] of this.ends) if ((ends.window.newest()?.atMs ?? 0) <= nowMs - HOUR_MS) this.ends.delete(id);
  }
}

function newestOf(seen: Map<string, number>): number {
  let newest = 0;
  for (const atMs of seen.values()) newest = Math.max(newest, atMs);
  return newest;
}

const threshold = (setting: RuleSetting) => setting.threshold ?? Number.POSITIVE_INFINITY;

const describe = (key: VelocityKey) =>
  key.scope === "caller_id" ? key.value : key.scope === "source" ? `source ${key.value}` : `numbers starting ${key.value}`;
