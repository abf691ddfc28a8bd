// The stereo recording of a call: caller on the left channel, callee on the right, 8 kHz 16-bit
// PCM WAV. Audio is placed by RTP timestamp, so network jitter does not smear it, on a timeline
// that starts with the first packet of either side. Only a sliding window of a few seconds is
// kept in memory; older audio goes to the file as the call proceeds, and finish() writes the
// sizes into the header at the front.
import { createWriteStream, type WriteStream } from "node:fs";
import { open } from "node:fs/promises";
import { ALAW_TO_PCM, ULAW_TO_PCM } from "./g711.ts";
import { BufferPool, endStream } from "./file-output.ts";
import { wavHeader } from "../../schema/wav.ts";
import { SPOOL_FILE_MODE } from "./spool.ts";

export type RecorderOptions = {
  /** Audio beyond this length is not recorded (default 4 hours). */
  maxSeconds?: number;
  /** How far behind the newest audio a late packet can still be placed (default 4 s). */
  windowSeconds?: number;
};
export type RecordingSummary = { path: string; bytes: number; seconds: number };

const SAMPLE_RATE = 8000;
const FRAMES_PER_MS = SAMPLE_RATE / 1000;
const CHANNELS = 2;
const BYTES_PER_FRAME = CHANNELS * 2;
const HEADER_BYTES = 44;
const DEFAULT_MAX_SECONDS = 4 * 3600;
const DEFAULT_WINDOW_SECONDS = 4;
/** Audio goes to the file a second at a time, not packet by packet. */
const FLUSH_FRAMES = SAMPLE_RATE;
/** A packet this far from where its arrival time would put it means the sender's clock jumped. */
const REANCHOR_FRAMES = 10 * SAMPLE_RATE;
const SILENCE = new Uint8Array(8 * SAMPLE_RATE * BYTES_PER_FRAME);
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Flush buffers, shared by all recorders: a flush is usually a little over a second of audio. */
const flushBuffers = new BufferPool(2 * FLUSH_FRAMES * BYTES_PER_FRAME);

/** Which timeline frame a channel's RTP timestamp stands for. */
type Anchor = { ssrc: number; rtpTimestamp: number; frame: number };

export class StereoRecorder {
  readonly path: string;
  private readonly maxFrames: number;
  private readonly windowFrames: number;
  /** A ring of interleaved frames: timeline frame f lives at f % windowFrames. */
  private readonly window: Int16Array;
  private readonly stream: WriteStream;
  private readonly anchors: [Anchor | null, Anchor | null] = [null, null];
  private startMs: number | null = null;
  /** Frames before this one are in the file. */
  private flushedFrames = 0;
  /** The recording is this many frames long so far. */
  private endFrame = 0;
  private droppedPackets = 0;
  private error: Error | null = null;
  private finishing: Promise<RecordingSummary> | null = null;

  constructor(path: string, opts: RecorderOptions = {}) {
    this.path = path;
    this.maxFrames = Math.floor((opts.maxSeconds ?? DEFAULT_MAX_SECONDS) * SAMPLE_RATE);
    this.windowFrames = Math.max(2 * FLUSH_FRAMES, Math.floor((opts.windowSeconds ?? DEFAULT_WINDOW_SECONDS) * SAMPLE_RATE));
    this.window = new Int16Array(this.windowFrames * CHANNELS);
    this.stream = createWriteStream(path, { mode: SPOOL_FILE_MODE });
    // Without a listener a failed open or write would crash the process; finish() reports it.
    this.stream.on("error", (error) => (this.error ??= error));
    this.stream.write(wavHeader({ sampleRate: SAMPLE_RATE, channels: CHANNELS, dataBytes: 0 }));
  }

  /** Packets not recorded: too late for the window, beyond maxSeconds, or after finish(). */
  get dropped(): number {
    return this.droppedPackets;
  }

  /** Records one G.711 payload; channel 0 is the caller, 1 the callee. */
  write(channel: 0 | 1, law: "PCMU" | "PCMA", payload: Uint8Array, rtpTimestamp: number, ssrc: number, arrivalMs: number): void {
    if (this.finishing || this.error) {
      this.droppedPackets++;
      return;
    }
    const start = this.placement(channel, rtpTimestamp, ssrc, arrivalMs);
    const first = Math.max(start, this.flushedFrames);
    const end = Math.min(start + payload.length, this.maxFrames);
    if (first >= end) {
      this.droppedPackets++;
      return;
    }
    if (end > this.flushedFrames + this.windowFrames) {
      // Make room, plus a second to spare; never flush where this packet goes.
      this.flushTo(Math.min(end - this.windowFrames + FLUSH_FRAMES, first));
    }
    this.decodeIntoWindow(channel, law === "PCMU" ? ULAW_TO_PCM : ALAW_TO_PCM, payload, first - start, first, end);
    this.endFrame = Math.max(this.endFrame, end);
  }

  /** Writes the rest of the audio and the final header; rejects if the file could not be written. */
  finish(): Promise<RecordingSummary> {
    this.finishing ??= this.complete();
    return this.finishing;
  }

  private async complete(): Promise<RecordingSummary> {
    this.flushTo(this.endFrame);
    await endStream(this.stream, () => this.error);
    const dataBytes = this.endFrame * BYTES_PER_FRAME;
    const file = await open(this.path, "r+");
    try {
      await file.write(wavHeader({ sampleRate: SAMPLE_RATE, channels: CHANNELS, dataBytes }), 0, HEADER_BYTES, 0);
    } finally {
      await file.close();
    }
    return { path: this.path, bytes: HEADER_BYTES + dataBytes, seconds: this.endFrame / SAMPLE_RATE };
  }

  /** The timeline frame of a packet's first sample. */
  private placement(channel: 0 | 1, rtpTimestamp: number, ssrc: number, arrivalMs: number): number {
    this.startMs ??= arrivalMs;
    const arrivalFrame = Math.round((arrivalMs - this.startMs) * FRAMES_PER_MS);
    const anchor = this.anchors[channel];
    if (anchor && anchor.ssrc === ssrc) {
      const frame = anchor.frame + ((rtpTimestamp - anchor.rtpTimestamp) | 0); // timestamps wrap at 2^32
      if (Math.abs(frame - arrivalFrame) <= REANCHOR_FRAMES) return frame;
    }
    this.anchors[channel] = { ssrc, rtpTimestamp, frame: arrivalFrame };
    return arrivalFrame;
  }

  private decodeIntoWindow(channel: 0 | 1, table: Int16Array, payload: Uint8Array, from: number, first: number, end: number): void {
    const window = this.window;
    const wrapAt = window.length;
    let slot = (first % this.windowFrames) * CHANNELS + channel;
    for (let i = from, last = from + end - first; i < last; i++) {
      window[slot] = table[payload[i]!]!;
      slot += CHANNELS;
      if (slot >= wrapAt) slot -= wrapAt;
    }
  }

  /** Sends frames [flushedFrames, frame) to the file and clears their place in the window. */
  private flushTo(frame: number): void {
    const inWindow = Math.min(frame, this.flushedFrames + this.windowFrames) - this.flushedFrames;
    if (inWindow > 0) {
      const audio = this.takeFromWindow(this.flushedFrames, inWindow);
      this.stream.write(audio, () => {
        flushBuffers.give(audio.buffer as ArrayBuffer);
      });
      this.flushedFrames += inWindow;
    }
    // Beyond the window nothing was written: silence.
    while (this.flushedFrames < frame) {
      const frames = Math.min(frame - this.flushedFrames, SILENCE.length / BYTES_PER_FRAME);
      this.stream.write(SILENCE.subarray(0, frames * BYTES_PER_FRAME));
      this.flushedFrames += frames;
    }
  }

  /** A little-endian copy of frames [first, first + count) of the window, whose slots are then zeroed. */
  private takeFromWindow(first: number, count: number): Uint8Array<ArrayBuffer> {
    const bytes = count * BYTES_PER_FRAME;
    const buffer = flushBuffers.take(bytes);
    const copy = new Int16Array(buffer, 0, count * CHANNELS);
    const startSlot = (first % this.windowFrames) * CHANNELS;
    const beforeWrap = Math.min(copy.length, this.window.length - startSlot);
    copy.set(this.window.subarray(startSlot, startSlot + beforeWrap));
    copy.set(this.window.subarray(0, copy.length - beforeWrap), beforeWrap);
    this.window.fill(0, startSlot, startSlot + beforeWrap);
    this.window.fill(0, 0, copy.length - beforeWrap);
    const out = new Uint8Array(buffer, 0, bytes);
    if (!HOST_IS_LITTLE_ENDIAN) Buffer.from(buffer, 0, bytes).swap16();
    return out;
  }
}
