// The audio conversions between a browser's codec and the G.711 the relay carries: Opus
// (libopus, the WebAssembly build the opusscript package ships, which decodes to and encodes
// from 8 kHz itself, so no separate resampler is needed) and the G.711 laws (the node's own tables).
import { createRequire } from "node:module";
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

/**
 * libopus as opusscript builds it (WebAssembly), driven here instead of through opusscript's own
 * wrapper, which is unsafe with many codecs: it takes views of the module's memory once, when a
 * codec is made (the memory growing as more are made detaches them: every later call throws),
 * and its 16-bit views start at twice the address it allocated (a u16 index given a byte
 * address), so the PCM of one codec is written over memory that belongs to others once there
 * are a few dozen (measured: codecs 79 and later of 120 threw "offset is out of bounds"). The
 * same exported functions are called with the same data layout (the glue takes one byte of
 * PCM per 16-bit slot), at addresses inside this codec's own allocations, through views taken
 * afresh at every call.
 */
type OpusNative = {
  OpusScriptHandler: new (rate: number, channels: number, application: number) => OpusHandler;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
};
type OpusHandler = {
  _encode(pcm: number, bytes: number, packet: number, frameSize: number): number;
  _decode(packet: number, bytes: number, pcm: number): number;
  _encoder_ctl(ctl: number, value: number): number;
};
type OpusHandlerClass = { destroy_handler(handler: OpusHandler): void };

const OPUS_APPLICATION_VOIP = 2048;
/** 60 ms at 48 kHz, libopus's longest frame, and its largest packet. */
const MAX_FRAME_SAMPLES = 2880;
const MAX_PACKET_BYTES = 3828;
let native: OpusNative | null = null;
const opusNative = () => (native ??= (createRequire(import.meta.url)("opusscript/build/opusscript_native_wasm.js") as () => OpusNative)());

/** One direction's Opus state: a decoder (browser to destination) or an encoder (the other way). */
export class OpusCodec {
  private readonly handler: OpusHandler;
  /** PCM in and out: one byte per 16-bit slot, so twice the bytes of the longest frame. */
  private readonly pcm: number;
  private readonly packet: number;
  private deleted = false;

  constructor() {
    const opus = opusNative();
    this.handler = new opus.OpusScriptHandler(8000, 1, OPUS_APPLICATION_VOIP);
    this.handler._encoder_ctl(OPUS_SET_COMPLEXITY, OPUS_COMPLEXITY);
    this.handler._encoder_ctl(OPUS_SET_BITRATE, OPUS_BITRATE);
    this.pcm = opus._malloc(MAX_FRAME_SAMPLES * 2 * 2);
    this.packet = opus._malloc(MAX_PACKET_BYTES);
  }

  /** An Opus packet's audio at 8 kHz (any frame length the browser chose). */
  decode(packet: Uint8Array): Int16Array {
    if (packet.length > MAX_PACKET_BYTES) throw new RangeError("Opus packet too long");
    const opus = opusNative();
    opus.HEAPU8.set(packet, this.packet);
    const samples = this.handler._decode(this.packet, packet.length, this.pcm);
    if (samples < 0) throw new Error(`Opus decode error ${samples}`);
    const slots = opus.HEAPU16.subarray(this.pcm >> 1, (this.pcm >> 1) + samples * 2);
    return new Int16Array(Uint8Array.from(slots).buffer);
  }

  /** 20 ms of 8 kHz audio as one Opus packet. */
  encode(frame: Int16Array): Buffer {
    const opus = opusNative();
    const bytes = new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength);
    opus.HEAPU16.set(bytes, this.pcm >> 1);
    const length = this.handler._encode(this.pcm, bytes.length, this.packet, FRAME_SAMPLES);
    if (length < 0) throw new Error(`Opus encode error ${length}`);
    return Buffer.from(opus.HEAPU8.subarray(this.packet, this.packet + length));
  }

  /** Frees the codec's WebAssembly memory (it is not garbage collected). */
  delete(): void {
    if (this.deleted) return;
    this.deleted = true;
    const opus = opusNative();
    (opus.OpusScriptHandler as unknown as OpusHandlerClass).destroy_handler(this.handler);
    opus._free(this.pcm);
    opus._free(this.packet);
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
