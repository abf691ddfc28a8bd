// The audio conversions between a browser's codec and the G.711 the relay carries: Opus
// (libopus, through opusscript's WebAssembly build, which decodes to and encodes from 8 kHz
// itself, so no separate resampler is needed) and the G.711 laws (the node's own tables).
import OpusScript from "opusscript";
import { ALAW_TO_PCM, encodeAlaw, encodeUlaw, ULAW_TO_PCM } from "../media/g711.ts";

export type Law = "PCMU" | "PCMA";
/** The voice codecs a browser may use on its leg. */
export type BrowserCodec = "opus" | Law;

/** 20 ms at 8 kHz: the frame the bridge encodes Opus in (and G.711 packets usually carry). */
export const FRAME_SAMPLES = 160;
/** Opus's RTP clock is 48 kHz whatever the audio (RFC 7587 §4.1); G.711's is 8 kHz. */
export const OPUS_CLOCK_RATIO = 6;
/** libopus's encoder effort, 0-10: 5 keeps speech clear at a third of the default's CPU. */
const OPUS_COMPLEXITY = 5;
const OPUS_SET_COMPLEXITY = 4010;
const OPUS_SET_BITRATE = 4002;
/** Speech over the public internet: what browsers use for voice by default. */
const OPUS_BITRATE = 32_000;

/** G.711 encoding by table: one lookup per sample instead of the bit work of encodeUlaw/encodeAlaw. */
function encodeTable(encode: (sample: number) => number): Uint8Array {
  const table = new Uint8Array(65_536);
  for (let i = 0; i < 65_536; i++) table[i] = encode(i - 32_768);
  return table;
}
let encodeTables: Record<Law, Uint8Array> | null = null;
const tables = () => (encodeTables ??= { PCMU: encodeTable(encodeUlaw), PCMA: encodeTable(encodeAlaw) });

export function decodeLaw(law: Law, payload: Uint8Array, out: Int16Array): number {
  const table = law === "PCMU" ? ULAW_TO_PCM : ALAW_TO_PCM;
  const n = Math.min(payload.length, out.length);
  for (let i = 0; i < n; i++) out[i] = table[payload[i]!]!;
  return n;
}

export function encodeLaw(law: Law, samples: Int16Array): Buffer {
  const table = tables()[law];
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = table[samples[i]! + 32_768]!;
  return out;
}

/** The views opusscript keeps on its WebAssembly memory (not in its typings). */
type OpusScriptViews = { inPCM: Uint16Array; inOpus: Uint8Array; outPCM: Uint16Array; outOpus: Uint8Array };

function newOpus(): OpusScript {
  const opus = new OpusScript(8000, 1, OpusScript.Application.VOIP);
  opus.encoderCTL(OPUS_SET_COMPLEXITY, OPUS_COMPLEXITY);
  opus.encoderCTL(OPUS_SET_BITRATE, OPUS_BITRATE);
  return opus;
}

/**
 * Whether an opusscript instance lost its buffers: it takes views of the WebAssembly memory
 * once, when made, and the memory growing (more codecs made, as calls start) detaches them,
 * after which every encode or decode throws. Measured: the first of 300 codecs made in a row.
 */
function detached(opus: OpusScript): boolean {
  const views = opus as unknown as OpusScriptViews;
  return views.inPCM.length === 0 || views.inOpus.length === 0 || views.outPCM.length === 0 || views.outOpus.length === 0;
}

/** One direction's Opus state: a decoder (browser to destination) or an encoder (the other way). */
export class OpusCodec {
  private opus: OpusScript = newOpus();
  private deleted = false;
  /** Times the codec was made afresh because the WebAssembly memory had grown under it. */
  renewed = 0;

  /** An Opus packet's audio at 8 kHz (any frame length the browser chose). */
  decode(packet: Uint8Array): Int16Array {
    const pcm = this.usable().decode(Buffer.from(packet.buffer, packet.byteOffset, packet.length));
    return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1);
  }

  /** 20 ms of 8 kHz audio as one Opus packet. */
  encode(frame: Int16Array): Buffer {
    return this.usable().encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), FRAME_SAMPLES);
  }

  /**
   * The codec, made afresh when the memory grew under it (its state starts over: a glitch of
   * a frame, once per growth). Making one can grow the memory again, even under its own first
   * views: a few tries.
   */
  private usable(): OpusScript {
    for (let tries = 0; tries < 4 && detached(this.opus); tries++) {
      this.opus.delete();
      this.opus = newOpus();
      this.renewed++;
    }
    return this.opus;
  }

  /** Frees the codec's WebAssembly memory (it is not garbage collected). */
  delete(): void {
    if (this.deleted) return;
    this.deleted = true;
    this.opus.delete();
  }
}

/**
 * Audio towards the browser, cut into 20 ms frames whatever the destination's packet length
 * (Opus has no 30 ms frame): samples in with the 8 kHz timestamp of their first one, frames out
 * with theirs. A gap in the timestamps (silence suppression, a lost packet) starts afresh.
 */
export class FrameQueue {
  private readonly frame = new Int16Array(FRAME_SAMPLES);
  private filled = 0;
  /** The 8 kHz timestamp of the frame being filled. */
  private timestamp = 0;

  push(samples: Int16Array, timestamp: number, onFrame: (frame: Int16Array, timestamp: number) => void): void {
    if (this.filled > 0 && ((timestamp - (this.timestamp + this.filled)) | 0) !== 0) this.filled = 0;
    if (this.filled === 0) this.timestamp = timestamp;
    for (let i = 0; i < samples.length;) {
      const n = Math.min(samples.length - i, FRAME_SAMPLES - this.filled);
      this.frame.set(samples.subarray(i, i + n), this.filled);
      this.filled += n;
      i += n;
      if (this.filled === FRAME_SAMPLES) {
        onFrame(this.frame, this.timestamp);
        this.timestamp = (this.timestamp + FRAME_SAMPLES) >>> 0;
        this.filled = 0;
      }
    }
  }
}
