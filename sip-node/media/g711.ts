// ITU-T G.711 µ-law (PCMU) and A-law (PCMA): table decoders for the media hot path, and the
// encoders tests and benchmarks use to make known audio. Linear samples are 16-bit signed.

/** The largest magnitude µ-law can encode before the bias is added (G.711 clips above it). */
const ULAW_CLIP = 32635;
const ULAW_BIAS = 0x84;

function ulawToLinear(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + ULAW_BIAS) << exponent) - ULAW_BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

function alawToLinear(code: number): number {
  const a = code ^ 0x55;
  const exponent = (a >> 4) & 0x07;
  const mantissa = a & 0x0f;
  let magnitude = (mantissa << 4) + 8;
  if (exponent > 0) magnitude = (magnitude + 0x100) << (exponent - 1);
  // In A-law a set sign bit means a positive sample.
  return a & 0x80 ? magnitude : -magnitude;
}

function decodeTable(toLinear: (code: number) => number): Int16Array {
  const table = new Int16Array(256);
  for (let code = 0; code < 256; code++) table[code] = toLinear(code);
  return table;
}

export const ULAW_TO_PCM: Int16Array = decodeTable(ulawToLinear);
export const ALAW_TO_PCM: Int16Array = decodeTable(alawToLinear);

/** Decodes payload.length G.711 bytes into out, starting at outOffset. */
export function decodeG711(payload: Uint8Array, law: "PCMU" | "PCMA", out: Int16Array, outOffset: number): void {
  const table = law === "PCMU" ? ULAW_TO_PCM : ALAW_TO_PCM;
  for (let i = 0; i < payload.length; i++) out[outOffset + i] = table[payload[i]!]!;
}

/** The index of the highest set bit of a positive integer. */
function highestBit(value: number): number {
  return 31 - Math.clz32(value);
}

/** Encodes one 16-bit linear sample as a µ-law byte. */
export function encodeUlaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(Math.abs(Math.round(sample)), ULAW_CLIP) + ULAW_BIAS;
  const exponent = highestBit(magnitude >> 7);
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** Encodes one 16-bit linear sample as an A-law byte. */
export function encodeAlaw(sample: number): number {
  const rounded = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = rounded >= 0 ? 0x80 : 0;
  // One's complement for negatives, as G.711 does: -1 and 0 share the smallest magnitude.
  const magnitude = rounded >= 0 ? rounded : -rounded - 1;
  let code: number;
  if (magnitude < 0x100) {
    code = magnitude >> 4;
  } else {
    const exponent = highestBit(magnitude >> 8) + 1;
    code = (exponent << 4) | ((magnitude >> (exponent + 3)) & 0x0f);
  }
  return (sign | code) ^ 0x55;
}
