// The transcript's segments as the API returns them (records of speaker, start, end and text, see
// the worker's transcript resource), read defensively, and which one is being played.

export type Segment = { start: number; end: number; text: string; speaker: string | null; channel: string | null };

const num = (value: unknown): number | null => {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
};

/** The segments with a start time and some text, in time order. */
export function segmentsOf(raw: Record<string, unknown>[] | null | undefined): Segment[] {
  const segments: Segment[] = [];
  for (const item of raw ?? []) {
    const start = num(item.start);
    const text = typeof item.text === "string" ? item.text.trim() : "";
    if (start === null || !text) continue;
    const end = num(item.end);
    const speaker = typeof item.speaker === "string" && item.speaker ? item.speaker : null;
    const channel = item.channel === undefined || item.channel === null ? null : String(item.channel);
    segments.push({ start, end: end !== null && end > start ? end : start, text, speaker, channel });
  }
  return segments.sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * The segment to highlight at a time: the latest-starting one being spoken then; between two
 * stretches of speech, the one that ended last (so the highlight moves on and never flickers off).
 * -1 before the first segment.
 */
export function playingAt(segments: Segment[], time: number): number {
  let lastHeard = -1;
  let speaking = -1;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.start > time) break;
    if (time < segment.end) speaking = i;
    if (lastHeard < 0 || segment.end >= segments[lastHeard]!.end) lastHeard = i;
  }
  return speaking >= 0 ? speaking : lastHeard;
}

export const speakerOf = (segment: Segment) =>
  segment.speaker
    ? segment.speaker.charAt(0).toUpperCase() + segment.speaker.slice(1)
    : segment.channel !== null
      ? `Channel ${segment.channel}`
      : "";
