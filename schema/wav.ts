// RIFF/WAVE with 16-bit linear PCM, the recordings' format shared by both runtimes: the header the
// SIP node's recorder writes, and a strict reader that the Worker's transcription splits channels
// with and the tests check recordings with.

export const HEADER_BYTES = 44;
const FORMAT_PCM = 1;
const BITS_PER_SAMPLE = 16;

export type WavAudio = { sampleRate: number; channels: number; bitsPerSample: number; samples: Int16Array };

/** The 44-byte header of a 16-bit little-endian PCM WAV file holding dataBytes of samples. */
export function wavHeader(opts: { sampleRate: number; channels: number; dataBytes: number }): Uint8Array {
  const header = new Uint8Array(HEADER_BYTES);
  const view = new DataView(header.buffer);
  const blockAlign = opts.channels * (BITS_PER_SAMPLE / 8);
  writeAscii(header, 0, "RIFF");
  view.setUint32(4, 36 + opts.dataBytes, true);
  writeAscii(header, 8, "WAVE");
  writeAscii(header, 12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, FORMAT_PCM, true);
  view.setUint16(22, opts.channels, true);
  view.setUint32(24, opts.sampleRate, true);
  view.setUint32(28, opts.sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, BITS_PER_SAMPLE, true);
  writeAscii(header, 36, "data");
  view.setUint32(40, opts.dataBytes, true);
  return header;
}

/** Reads a 16-bit PCM WAV file; throws on anything else, or on sizes that do not add up. */
export function parseWav(bytes: Uint8Array): WavAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || readAscii(bytes, 0) !== "RIFF" || readAscii(bytes, 8) !== "WAVE") {
    throw new Error("not a RIFF/WAVE file");
  }
  if (view.getUint32(4, true) !== bytes.length - 8) throw new Error("RIFF size does not match the file size");
  let format: Omit<WavAudio, "samples"> | null = null;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = readAscii(bytes, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (body + size > bytes.length) throw new Error(`${id} chunk runs past the end of the file`);
    if (id === "fmt ") format = readFormat(view, body, size);
    if (id === "data") {
      if (!format) throw new Error("data chunk before fmt chunk");
      if (size % (format.channels * 2) !== 0) throw new Error("data is not a whole number of frames");
      return { ...format, samples: readSamples(view, body, size) };
    }
    offset = body + size + (size & 1);
  }
  throw new Error("no data chunk");
}

function readFormat(view: DataView, offset: number, size: number): Omit<WavAudio, "samples"> {
  if (size < 16) throw new Error("fmt chunk too short");
  const formatTag = view.getUint16(offset, true);
  const channels = view.getUint16(offset + 2, true);
  const sampleRate = view.getUint32(offset + 4, true);
  const byteRate = view.getUint32(offset + 8, true);
  const blockAlign = view.getUint16(offset + 12, true);
  const bitsPerSample = view.getUint16(offset + 14, true);
  if (formatTag !== FORMAT_PCM) throw new Error(`not PCM (format ${formatTag})`);
  if (bitsPerSample !== BITS_PER_SAMPLE) throw new Error(`${bitsPerSample}-bit samples are not supported`);
  if (channels < 1 || blockAlign !== channels * 2 || byteRate !== sampleRate * blockAlign) {
    throw new Error("inconsistent fmt chunk");
  }
  return { sampleRate, channels, bitsPerSample };
}

function readSamples(view: DataView, offset: number, size: number): Int16Array {
  const samples = new Int16Array(size / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(offset + i * 2, true);
  return samples;
}

function writeAscii(target: Uint8Array, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) target[offset + i] = text.charCodeAt(i);
}

function readAscii(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

/** One channel of a multi-channel recording as a mono WAV file (the Worker transcribes each side apart). */
export function channelWav(audio: WavAudio, channel: number): Uint8Array {
  const frames = audio.samples.length / audio.channels;
  const out = new Uint8Array(HEADER_BYTES + frames * 2);
  out.set(wavHeader({ sampleRate: audio.sampleRate, channels: 1, dataBytes: frames * 2 }));
  const view = new DataView(out.buffer);
  for (let i = 0; i < frames; i++) view.setInt16(HEADER_BYTES + i * 2, audio.samples[i * audio.channels + channel]!, true);
  return out;
}
