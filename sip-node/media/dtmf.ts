// DTMF digits sent as RFC 4733 telephone-events: one event per tone. Senders repeat a tone's
// packets while it lasts and send its end (E bit) three times; all of them carry the RTP
// timestamp of the tone's start, which is what tells tones apart.

export type DtmfEvent = { t: number; digit: string; channel: string; ms: number | null; source: string | null };

const DIGITS = "0123456789*#ABCD";
const MAX_EVENTS = 1000;
/** Timestamps of finished tones remembered, so their late retransmissions are not new tones. */
const REMEMBERED_TONES = 8;

type Tone = { timestamp: number; digit: string; startedMs: number; durationUnits: number };

export class DtmfDetector {
  private readonly channel: "caller" | "callee";
  private readonly startedAtMs: number;
  private readonly clockRate: number;
  private readonly finished: DtmfEvent[] = [];
  private readonly finishedTimestamps: number[] = [];
  private current: Tone | null = null;

  constructor(channel: "caller" | "callee", startedAtMs: number, clockRate = 8000) {
    this.channel = channel;
    this.startedAtMs = startedAtMs;
    this.clockRate = clockRate;
  }

  /** One telephone-event RTP payload (after the RTP header). */
  onPacket(payload: Uint8Array, rtpTimestamp: number, arrivalMs: number): void {
    if (payload.length < 4) return;
    const digit = DIGITS[payload[0]!]; // other events (flash, tones) are not digits
    const ended = (payload[1]! & 0x80) !== 0;
    const durationUnits = (payload[2]! << 8) | payload[3]!;
    if (this.finishedTimestamps.includes(rtpTimestamp)) return; // a finished tone's retransmission
    if (this.current && this.current.timestamp !== rtpTimestamp) this.finishCurrent();
    if (digit === undefined) return;
    this.current ??= { timestamp: rtpTimestamp, digit, startedMs: arrivalMs, durationUnits };
    this.current.durationUnits = Math.max(this.current.durationUnits, durationUnits);
    if (ended) this.finishCurrent();
  }

  /** The tones so far, a tone still sounding (or whose end was lost) included. */
  events(): DtmfEvent[] {
    const events = [...this.finished];
    if (this.current && events.length < MAX_EVENTS) events.push(this.toEvent(this.current));
    return events;
  }

  private finishCurrent(): void {
    const tone = this.current!;
    this.current = null;
    this.finishedTimestamps.push(tone.timestamp);
    if (this.finishedTimestamps.length > REMEMBERED_TONES) this.finishedTimestamps.shift();
    if (this.finished.length < MAX_EVENTS) this.finished.push(this.toEvent(tone));
  }

  private toEvent(tone: Tone): DtmfEvent {
    return {
      t: Math.round(tone.startedMs - this.startedAtMs) / 1000,
      digit: tone.digit,
      channel: this.channel,
      ms: Math.round((tone.durationUnits / this.clockRate) * 1000),
      source: "rfc4733",
    };
  }
}
