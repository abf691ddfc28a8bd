// The stereo call recording, fed with sipp's real G.711 capture.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ALAW_TO_PCM, ULAW_TO_PCM, encodeUlaw } from "../../sip-node/media/g711.ts";
import { readPcap } from "../../sip-node/media/pcap.ts";
import { StereoRecorder } from "../../sip-node/media/recorder.ts";
import { parseWav } from "../../schema/wav.ts";
import { until } from "./wait.ts";

const dir = mkdtempSync(join(tmpdir(), "media-recorder-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type RtpPacket = { payload: Uint8Array; timestamp: number; ssrc: number; arrivalMs: number };

/** sipp's g711a.pcap: 236 PCMA packets of 240 samples. */
function capturePackets(): RtpPacket[] {
  return readPcap(readFileSync("/usr/share/sip-tester/g711a.pcap")).map((r) => {
    const view = new DataView(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength);
    return { payload: r.payload.subarray(12), timestamp: view.getUint32(4), ssrc: view.getUint32(8), arrivalMs: r.timeMs };
  });
}

/** A 440 Hz µ-law sine in packets of 240 samples, starting at the given arrival time, every 30 ms. */
function sinePackets(count: number, firstArrivalMs: number, firstTimestamp = 123_456): RtpPacket[] {
  return Array.from({ length: count }, (_, p) => ({
    payload: Uint8Array.from({ length: 240 }, (_, i) => encodeUlaw(8000 * Math.sin((2 * Math.PI * 440 * (p * 240 + i)) / 8000))),
    timestamp: (firstTimestamp + p * 240) >>> 0,
    ssrc: 0x5151,
    arrivalMs: firstArrivalMs + p * 30,
  }));
}

function decodeAll(packets: RtpPacket[], table: Int16Array): Int16Array {
  const out = new Int16Array(packets.length * 240);
  packets.forEach((p, k) => p.payload.forEach((code, i) => (out[k * 240 + i] = table[code]!)));
  return out;
}

function channel(samples: Int16Array, which: 0 | 1): Int16Array {
  return samples.filter((_, i) => i % 2 === which);
}

/** How many samples differ; 0 means the same audio, sample for sample. */
function mismatches(actual: Int16Array, expected: Int16Array): number {
  let count = Math.abs(actual.length - expected.length);
  for (let i = 0; i < Math.min(actual.length, expected.length); i++) if (actual[i] !== expected[i]) count++;
  return count;
}

/** A small deterministic generator, so the jitter is the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff;
}

async function record(name: string, writes: Array<RtpPacket & { channel: 0 | 1; law: "PCMU" | "PCMA" }>, opts = {}) {
  const path = join(dir, name);
  const recorder = new StereoRecorder(path, opts);
  for (const w of writes) recorder.write(w.channel, w.law, w.payload, w.timestamp, w.ssrc, w.arrivalMs);
  const summary = await recorder.finish();
  return { recorder, summary, path, wav: parseWav(readFileSync(path)) };
}

const left = (packets: RtpPacket[]) => packets.map((p) => ({ ...p, channel: 0 as const, law: "PCMA" as const }));
const right = (packets: RtpPacket[]) => packets.map((p) => ({ ...p, channel: 1 as const, law: "PCMU" as const }));
const byArrival = <T extends { arrivalMs: number }>(packets: T[]) => packets.sort((a, b) => a.arrivalMs - b.arrivalMs);

describe("StereoRecorder", () => {
  it("records the caller's real PCMA on the left and the callee's sine on the right", async () => {
    const caller = capturePackets();
    const callee = sinePackets(236, caller[0]!.arrivalMs);
    const { wav, summary, path, recorder } = await record("call.wav", byArrival([...left(caller), ...right(callee)]));
    expect(wav).toMatchObject({ sampleRate: 8000, channels: 2, bitsPerSample: 16 });
    const frames = wav.samples.length / 2;
    expect(Math.abs(frames - 236 * 240)).toBeLessThanOrEqual(240);
    expect(summary).toEqual({ path, bytes: statSync(path).size, seconds: frames / 8000 });
    expect(mismatches(channel(wav.samples, 0).subarray(0, 236 * 240), decodeAll(caller, ALAW_TO_PCM))).toBe(0);
    expect(mismatches(channel(wav.samples, 1).subarray(0, 236 * 240), decodeAll(callee, ULAW_TO_PCM))).toBe(0);
    expect(recorder.dropped).toBe(0);
  });

  it("places jittered, reordered packets at their timestamps", async () => {
    const caller = capturePackets();
    const next = random(42);
    const jittered = caller.map((p, k) => ({ ...p, arrivalMs: k === 0 ? p.arrivalMs : p.arrivalMs + (next() - 0.5) * 120 }));
    const arrivals = byArrival(jittered);
    expect(arrivals.map((p) => p.timestamp)).not.toEqual(caller.map((p) => p.timestamp)); // really out of order
    const { wav, recorder } = await record("jittered.wav", left(arrivals));
    expect(wav.samples.length / 2).toBe(236 * 240);
    expect(mismatches(channel(wav.samples, 0), decodeAll(caller, ALAW_TO_PCM))).toBe(0);
    expect(channel(wav.samples, 1).every((s) => s === 0)).toBe(true);
    expect(recorder.dropped).toBe(0);
  });

  it("starts a side that begins later at its arrival time, with silence before", async () => {
    const caller = capturePackets().slice(0, 100);
    const callee = sinePackets(50, caller[0]!.arrivalMs + 1000); // answers a second later
    const { wav } = await record("late-side.wav", byArrival([...left(caller), ...right(callee)]));
    const rightChannel = channel(wav.samples, 1);
    expect(rightChannel.subarray(0, 8000).every((s) => s === 0)).toBe(true);
    expect(mismatches(rightChannel.subarray(8000, 8000 + 50 * 240), decodeAll(callee, ULAW_TO_PCM))).toBe(0);
  });

  it("re-anchors by arrival time on a new SSRC or a timestamp jump, across the 32-bit timestamp wrap", async () => {
    const start = 1_000_000;
    const first = sinePackets(10, start, 0xffff_ffff - 1000); // wraps within the first 300 ms
    const newSource = sinePackets(10, start + 2000, 77).map((p) => ({ ...p, ssrc: 0x9999 }));
    const jumped = sinePackets(10, start + 4000, 77 + 8000 * 60).map((p) => ({ ...p, ssrc: 0x9999 }));
    const { wav } = await record("reanchor.wav", right([...first, ...newSource, ...jumped]));
    const rightChannel = channel(wav.samples, 1);
    expect(wav.samples.length / 2).toBe(4 * 8000 + 2400);
    for (const [at, packets] of [
      [0, first],
      [16000, newSource],
      [32000, jumped],
    ] as const) {
      expect(mismatches(rightChannel.subarray(at, at + 2400), decodeAll(packets, ULAW_TO_PCM)), `at ${at}`).toBe(0);
    }
    expect(rightChannel.subarray(2400, 16000).every((s) => s === 0)).toBe(true);
  });

  it("writes to the file as the call goes, keeping only a window in memory", async () => {
    const path = join(dir, "long.wav");
    const recorder = new StereoRecorder(path, { windowSeconds: 2 });
    const packets = sinePackets(1000, 0); // 30 s
    for (const p of packets) recorder.write(1, "PCMU", p.payload, p.timestamp, p.ssrc, p.arrivalMs);
    await until("the audio before the window written", () => existsSync(path) && statSync(path).size > 44 + 27 * 8000 * 4);
    const written = statSync(path).size;
    expect(written).toBeGreaterThan(44 + 27 * 8000 * 4); // all but the last 2-3 seconds
    // A packet 3 s late, for audio already in the file, is dropped rather than written over it.
    const late = packets[900]!;
    recorder.write(
      1,
      "PCMU",
      late.payload.map(() => 0),
      late.timestamp,
      late.ssrc,
      late.arrivalMs + 3000,
    );
    expect(recorder.dropped).toBe(1);
    const summary = await recorder.finish();
    expect(summary.seconds).toBe(30);
    const wav = parseWav(readFileSync(path));
    expect(mismatches(channel(wav.samples, 1), decodeAll(packets, ULAW_TO_PCM))).toBe(0);
    expect(await recorder.finish()).toEqual(summary);
  });

  it("keeps each recording's audio when the buffers one has written are filled again by another", async () => {
    const calls = [0, 1].map((k) => {
      const path = join(dir, `shared-${k}.wav`);
      const packets = sinePackets(400, 0, 1000 + k).map((p, i) => ({ ...p, payload: p.payload.map((b) => (b + k * 37 + i) & 0xff) })); // 12 s each
      return { path, packets, recorder: new StereoRecorder(path, { windowSeconds: 2 }) };
    });
    // A second at a time each, letting writes complete in between, so a buffer one has written is reused by the other.
    for (let from = 0; from < 400; from += 34) {
      for (const c of calls)
        for (const p of c.packets.slice(from, from + 34)) c.recorder.write(0, "PCMU", p.payload, p.timestamp, p.ssrc, p.arrivalMs);
      await new Promise((r) => setTimeout(r, 5)); // deliberate: room for the writes between turns
    }
    for (const c of calls) {
      await c.recorder.finish();
      expect(mismatches(channel(parseWav(readFileSync(c.path)).samples, 0), decodeAll(c.packets, ULAW_TO_PCM))).toBe(0);
    }
  });

  it("stops at maxSeconds", async () => {
    const { wav, summary, recorder } = await record("capped.wav", right(sinePackets(100, 0)), { maxSeconds: 1 });
    expect(summary.seconds).toBe(1);
    expect(wav.samples.length).toBe(2 * 8000);
    expect(recorder.dropped).toBe(100 - Math.ceil(8000 / 240));
  });

  it("writes a valid empty file for a call without audio", async () => {
    const { wav, summary } = await record("empty.wav", []);
    expect(wav.samples.length).toBe(0);
    expect(summary).toMatchObject({ bytes: 44, seconds: 0 });
  });
});
