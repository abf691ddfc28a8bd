// G.711 tables and encoders against ITU-T values, and the WAV header and reader.
import { describe, expect, it } from "vitest";
import { ALAW_TO_PCM, ULAW_TO_PCM, decodeG711, encodeAlaw, encodeUlaw } from "../../sip-node/media/g711.ts";
import { parseWav, wavHeader } from "../../schema/wav.ts";

/** Signal-to-quantisation-noise ratio in dB of a decoded signal. */
function snrDb(original: number[], decoded: ArrayLike<number>): number {
  let signal = 0;
  let noise = 0;
  original.forEach((x, i) => {
    signal += x * x;
    noise += (x - decoded[i]!) ** 2;
  });
  return 10 * Math.log10(signal / noise);
}

const sine = (amplitude: number, frequency: number, count: number) =>
  Array.from({ length: count }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / 8000)));

describe("G.711 decoding tables", () => {
  it("decode µ-law to the values of the G.711 tables", () => {
    expect(ULAW_TO_PCM[0xff]).toBe(0);
    expect(ULAW_TO_PCM[0x7f]).toBe(0);
    expect(ULAW_TO_PCM[0x80]).toBe(32124);
    expect(ULAW_TO_PCM[0x00]).toBe(-32124);
    expect(ULAW_TO_PCM[0xfe]).toBe(8);
    expect(ULAW_TO_PCM[0xef]).toBe(132); // first code of the second segment
  });

  it("decode A-law to the values of the G.711 tables", () => {
    expect(ALAW_TO_PCM[0xd5]).toBe(8);
    expect(ALAW_TO_PCM[0x55]).toBe(-8);
    expect(ALAW_TO_PCM[0xaa]).toBe(32256);
    expect(ALAW_TO_PCM[0x2a]).toBe(-32256);
    expect(ALAW_TO_PCM[0xc5]).toBe(264); // first code of the second segment
  });

  it("are monotonic within each sign, as companding must be", () => {
    // µ-law: 0xFF..0x80 rise from 0 to the maximum; A-law codes sorted by value are all distinct.
    for (let code = 0xff; code > 0x80; code--) expect(ULAW_TO_PCM[code - 1]!).toBeGreaterThan(ULAW_TO_PCM[code]!);
    expect(new Set(ALAW_TO_PCM).size).toBe(256);
  });

  it("decodeG711 writes one sample per byte at the offset", () => {
    const out = new Int16Array(6).fill(7);
    decodeG711(Uint8Array.of(0xd5, 0xaa, 0x55), "PCMA", out, 2);
    expect([...out]).toEqual([7, 7, 8, 32256, -8, 7]);
    decodeG711(Uint8Array.of(0xff, 0x80), "PCMU", out, 0);
    expect([...out.subarray(0, 2)]).toEqual([0, 32124]);
  });
});

describe("G.711 encoders", () => {
  it("map every decoded value back to its code", () => {
    for (let code = 0; code < 256; code++) {
      expect(encodeAlaw(ALAW_TO_PCM[code]!)).toBe(code);
      // µ-law has two zeros (0xFF and 0x7F); 0 encodes as the positive one.
      expect(encodeUlaw(ULAW_TO_PCM[code]!)).toBe(code === 0x7f ? 0xff : code);
    }
  });

  it("encode known samples", () => {
    expect(encodeUlaw(0)).toBe(0xff);
    expect(encodeUlaw(32767)).toBe(0x80);
    expect(encodeUlaw(-32768)).toBe(0x00);
    expect(encodeAlaw(0)).toBe(0xd5);
    expect(encodeAlaw(-1)).toBe(0x55);
    expect(encodeAlaw(32767)).toBe(0xaa);
    expect(encodeAlaw(-32768)).toBe(0x2a);
  });

  it("round-trip a sine within G.711 quantisation error", () => {
    for (const [law, encode] of [
      ["PCMU", encodeUlaw],
      ["PCMA", encodeAlaw],
    ] as const) {
      for (const amplitude of [1000, 10000, 30000]) {
        const samples = sine(amplitude, 1000, 800);
        const decoded = new Int16Array(samples.length);
        decodeG711(Uint8Array.from(samples, encode), law, decoded, 0);
        // G.711 gives about 38 dB over most of its range.
        expect(snrDb(samples, decoded), `${law} ${amplitude}`).toBeGreaterThan(33);
        // Each sample is within half a quantisation step: at most 1/32 of its magnitude, plus the smallest step.
        samples.forEach((x, i) => expect(Math.abs(decoded[i]! - x)).toBeLessThanOrEqual(Math.abs(x) / 32 + 16));
      }
    }
  });
});

describe("WAV", () => {
  it("writes the canonical 44-byte PCM header", () => {
    const header = wavHeader({ sampleRate: 8000, channels: 2, dataBytes: 32000 });
    const view = new DataView(header.buffer);
    const ascii = (at: number) => String.fromCharCode(...header.subarray(at, at + 4));
    expect(header.length).toBe(44);
    expect([ascii(0), ascii(8), ascii(12), ascii(36)]).toEqual(["RIFF", "WAVE", "fmt ", "data"]);
    expect(view.getUint32(4, true)).toBe(32036);
    expect(view.getUint32(16, true)).toBe(16);
    expect(view.getUint16(20, true)).toBe(1);
    expect(view.getUint16(22, true)).toBe(2);
    expect(view.getUint32(24, true)).toBe(8000);
    expect(view.getUint32(28, true)).toBe(32000); // bytes per second
    expect(view.getUint16(32, true)).toBe(4);
    expect(view.getUint16(34, true)).toBe(16);
    expect(view.getUint32(40, true)).toBe(32000);
  });

  it("reads back what it writes, interleaved and little-endian", () => {
    const samples = Int16Array.of(1, -1, 32767, -32768, 256, -300);
    const bytes = new Uint8Array(44 + samples.byteLength);
    bytes.set(wavHeader({ sampleRate: 16000, channels: 2, dataBytes: samples.byteLength }));
    bytes.set(new Uint8Array(samples.buffer), 44);
    expect(bytes.subarray(44, 48)).toEqual(Uint8Array.of(1, 0, 0xff, 0xff));
    const wav = parseWav(bytes);
    expect(wav).toMatchObject({ sampleRate: 16000, channels: 2, bitsPerSample: 16 });
    expect([...wav.samples]).toEqual([...samples]);
  });

  it("skips chunks it does not know", () => {
    const samples = Int16Array.of(5, 6);
    const header = wavHeader({ sampleRate: 8000, channels: 1, dataBytes: 4 });
    const list = Uint8Array.of(...[..."LIST"].map((c) => c.charCodeAt(0)), 3, 0, 0, 0, 1, 2, 3, 0); // odd size, padded
    const bytes = new Uint8Array([...header.subarray(0, 36), ...list, ...header.subarray(36), ...new Uint8Array(samples.buffer)]);
    new DataView(bytes.buffer).setUint32(4, bytes.length - 8, true);
    expect([...parseWav(bytes).samples]).toEqual([5, 6]);
  });

  it("refuses what is not 16-bit PCM WAV or does not add up", () => {
    const good = new Uint8Array(48);
    good.set(wavHeader({ sampleRate: 8000, channels: 1, dataBytes: 4 }));
    expect(() => parseWav(good)).not.toThrow();
    const float = good.slice();
    new DataView(float.buffer).setUint16(20, 3, true);
    expect(() => parseWav(float)).toThrow(/not PCM/);
    const eightBit = good.slice();
    new DataView(eightBit.buffer).setUint16(34, 8, true);
    expect(() => parseWav(eightBit)).toThrow(/8-bit/);
    expect(() => parseWav(good.subarray(0, 46))).toThrow(/size/);
    expect(() => parseWav(new TextEncoder().encode("RIFX....WAVEfmt "))).toThrow(/RIFF/);
    const placeholder = new Uint8Array(48);
    placeholder.set(wavHeader({ sampleRate: 8000, channels: 1, dataBytes: 0 }));
    expect(() => parseWav(placeholder)).toThrow(/RIFF size/);
  });
});
