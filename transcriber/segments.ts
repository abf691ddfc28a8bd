// Timed words into the segments of a verbose_json answer: a segment ends where the engine ended an
// utterance, at a pause, or when it grows too long to be a useful quote.
import type { TimedWord } from "./engine.ts";

export type Segment = { id: number; start: number; end: number; text: string };

export type SegmentLimits = {
  /** A silence longer than this (seconds) between two words starts a new segment. */
  pauseSeconds: number;
  /** A segment is closed once it is this long (seconds). */
  maxSeconds: number;
};

export const DEFAULT_LIMITS: SegmentLimits = { pauseSeconds: 0.8, maxSeconds: 15 };

/** Segments in time order, their times rounded to milliseconds and kept within [0, duration]. */
export function segmentWords(words: TimedWord[], duration: number, limits: SegmentLimits = DEFAULT_LIMITS): Segment[] {
  const segments: Segment[] = [];
  let current: TimedWord[] = [];
  const close = () => {
    if (current.length === 0) return;
    const start = clamp(current[0]!.start, duration);
    const end = Math.max(start, clamp(current.at(-1)!.end, duration));
    segments.push({ id: segments.length, start, end, text: current.map((w) => w.word).join(" ") });
    current = [];
  };
  for (const word of [...words].sort((a, b) => a.start - b.start)) {
    const last = current.at(-1);
    if (
      last &&
      (word.utterance !== last.utterance || word.start - last.end > limits.pauseSeconds || word.end - current[0]!.start > limits.maxSeconds)
    ) {
      close();
    }
    current.push(word);
  }
  close();
  return segments;
}

function clamp(seconds: number, duration: number): number {
  return Math.round(Math.min(Math.max(seconds, 0), duration) * 1000) / 1000;
}
