// Reads the WAV files callers send: RIFF/WAVE with linear PCM (8, 16, 24 or 32-bit integer, or
// 32-bit float), or G.711 µ-law/A-law, any number of channels (mixed down to one), in plain or
// WAVE_FORMAT_EXTENSIBLE headers. Streamed files whose RIFF or data size was never filled in
// (0 or 0xFFFFFFFF) are read to the end of the file. Anything else throws a WavError.

export class WavError extends Error {
  override readonly name = "WavError";
}

export type MonoAudio = {
  sampleRate: number;
  /** How many channels the file had before the mixdown. */
  channels: number;
  /** Samples in [-1, 1). */
  samples: Float32Array;
};

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_ALAW = 6;
const FORMAT_MULAW = 7;
const FORMAT_EXTENSIBLE = 0xfffe;
const MAX_CHANNELS = 16;
const MIN_RATE = 4000;
const MAX_RATE = 192_000;

type Format = { tag: number; channels: number; sampleRate: number; bitsPerSample: number; blockAlign: number };

/** The file's audio as one channel of float samples. */
export function readWav(bytes: Uint8Array): MonoAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || ascii(bytes, 0) !== "RIFF" || ascii(bytes, 8) !== "WAVE") throw new WavError("not a RIFF/WAVE file");
  let format: Format | null = null;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = ascii(bytes, offset);
    const declared = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === "data") {
      if (!format) throw new WavError("data chunk before fmt chunk");
      // A streamed recording may leave the size unset; a truncated one ends early: read what is there.
      const size = declared === 0 || declared === 0xffffffff ? bytes.length - body : Math.min(declared, bytes.length - body);
      return decode(format, view, body, size - (size % format.blockAlign));
    }
    if (body + declared > bytes.length) throw new WavError(`${id.trim() || "a"} chunk runs past the end of the file`);
    if (id === "fmt ") format = readFormat(view, body, declared);
    offset = body + declared + (declared & 1);
  }
  throw new WavError("no data chunk");
}

function readFormat(view: DataView, offset: number, size: number): Format {
  if (size < 16) throw new WavError("fmt chunk too short");
  let tag = view.getUint16(offset, true);
  const channels = view.getUint16(offset + 2, true);
  const sampleRate = view.getUint32(offset + 4, true);
  const blockAlign = view.getUint16(offset + 12, true);
  const bitsPerSample = view.getUint16(offset + 14, true);
  if (tag === FORMAT_EXTENSIBLE) {
    if (size < 40) throw new WavError("WAVE_FORMAT_EXTENSIBLE fmt chunk too short");
    tag = view.getUint16(offset + 24, true); // the first two bytes of the sub-format GUID are the format tag
  }
  if (channels < 1 || channels > MAX_CHANNELS) throw new WavError(`${channels} channels are not supported`);
  if (sampleRate < MIN_RATE || sampleRate > MAX_RATE) throw new WavError(`a sample rate of ${sampleRate} Hz is not supported`);
  const supported =
    (tag === FORMAT_PCM && [8, 16, 24, 32].includes(bitsPerSample)) ||
    (tag === FORMAT_FLOAT && bitsPerSample === 32) ||
    ((tag === FORMAT_ALAW || tag === FORMAT_MULAW) && bitsPerSample === 8);
  if (!supported) throw new WavError(`format ${tag} with ${bitsPerSample}-bit samples is not supported (send 16-bit PCM)`);
  if (blockAlign !== channels * (bitsPerSample / 8)) throw new WavError("inconsistent fmt chunk (block align)");
  return { tag, channels, sampleRate, bitsPerSample, blockAlign };
}

function decode(format: Format, view: DataView, offset: number, size: number): MonoAudio {
  const frames = size / format.blockAlign;
  const samples = new Float32Array(frames);
  const width = format.bitsPerSample / 8;
  const read = sampleReader(format, view);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    const at = offset + frame * format.blockAlign;
    for (let c = 0; c < format.channels; c++) sum += read(at + c * width);
    samples[frame] = sum / format.channels;
  }
  return { sampleRate: format.sampleRate, channels: format.channels, samples };
}

function sampleReader(format: Format, view: DataView): (at: number) => number {
  if (format.tag === FORMAT_FLOAT) return (at) => Math.max(-1, Math.min(1, view.getFloat32(at, true)));
  if (format.tag === FORMAT_MULAW) return (at) => ULAW[view.getUint8(at)]! / 32768;
  if (format.tag === FORMAT_ALAW) return (at) => ALAW[view.getUint8(at)]! / 32768;
  switch (format.bitsPerSample) {
    case 8:
      return (at) => (view.getUint8(at) - 128) / 128;
    case 16:
      return (at) => view.getInt16(at, true) / 32768;
    case 24:
      return (at) => ((view.getUint8(at + 2) << 24) | (view.getUint8(at + 1) << 16) | (view.getUint8(at) << 8)) / 2147483648;
    default:
      return (at) => view.getInt32(at, true) / 2147483648;
  }
}

function ascii(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

/** ITU-T G.711 µ-law code to linear 16-bit. */
function ulaw(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << exponent) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

/** ITU-T G.711 A-law code to linear 16-bit (a set sign bit is a positive sample). */
function alaw(code: number): number {
  const a = code ^ 0x55;
  const exponent = (a >> 4) & 0x07;
  let magnitude = ((a & 0x0f) << 4) + 8;
  if (exponent > 0) magnitude = (magnitude + 0x100) << (exponent - 1);
  return a & 0x80 ? magnitude : -magnitude;
}

const ULAW = Int16Array.from({ length: 256 }, (_, code) => ulaw(code));
const ALAW = Int16Array.from({ length: 256 }, (_, code) => alaw(code));

/** A 16-bit PCM WAV file of mono samples (the bench and the tests make their requests with it). */
export function encodeWav(samples: Int16Array, sampleRate: number): Uint8Array {
  const bytes = new Uint8Array(44 + samples.length * 2);
  const view = new DataView(bytes.buffer);
  const text = (offset: number, s: string) => [...s].forEach((ch, i) => (bytes[offset + i] = ch.charCodeAt(0)));
  text(0, "RIFF");
  view.setUint32(4, 36 + samples.length * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, FORMAT_PCM, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  text(36, "data");
  view.setUint32(40, samples.length * 2, true);
  samples.forEach((s, i) => view.setInt16(44 + i * 2, s, true));
  return bytes;
}
