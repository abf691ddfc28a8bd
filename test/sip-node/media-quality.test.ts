// Receive statistics: RFC 3550 loss and jitter, the E-model MOS, RTCP round trips.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readPcap } from "../../sip-node/media/pcap.ts";
import { RtcpRttTracker, StreamQuality, eModelMos, ntpMiddle32, parseRtcpRtt } from "../../sip-node/media/quality.ts";

/** Feeds packets of 20 ms (160 timestamp units) with the given sequence numbers, on time. */
function feed(quality: StreamQuality, sequences: number[], firstTimestamp = 1000) {
  sequences.forEach((seq, i) => quality.onPacket(seq & 0xffff, firstTimestamp + i * 160, 10_000 + i * 20));
}

/** Feeds packets by sequence number, the timestamp and arrival following from it (no jitter). */
function feedInTime(quality: StreamQuality, sequences: number[], base: number) {
  for (const seq of sequences) {
    const n = (seq - base + 0x10000) & 0xffff;
    quality.onPacket(seq & 0xffff, 5000 + n * 160, 1000 + n * 20);
  }
}

describe("loss", () => {
  it("counts every 20th packet of 1000 dropped as 5% loss", () => {
    const quality = new StreamQuality();
    for (let i = 0; i < 1000; i++) if (i % 20 !== 19) quality.onPacket(i, i * 160, i * 20);
    expect(quality.packets).toBe(950);
    // The stream's last packet (999) was dropped, so only 999 were expected.
    expect(quality.expected).toBe(999);
    expect(quality.lost).toBe(49);
    expect(quality.lossPct).toBeCloseTo(4.9, 1);
    expect(quality.snapshot()).toMatchObject({ packets: 950, lost: 49, loss_pct: 4.9, jitter_ms: 0 });
  });

  it("counts no loss across the sequence number wrap at 65535", () => {
    const quality = new StreamQuality();
    feed(
      quality,
      Array.from({ length: 200 }, (_, i) => 65_436 + i),
    );
    expect(quality.expected).toBe(200);
    expect(quality.lost).toBe(0);
    // And loss after the wrap is still seen: 100 and 101 are missing.
    quality.onPacket(102, 0, 20_000);
    expect(quality.lost).toBe(2);
  });

  it("counts reordered packets once and as not lost", () => {
    const quality = new StreamQuality();
    feedInTime(quality, [10, 11, 13, 12, 14, 16, 15], 10);
    expect(quality.packets).toBe(7);
    expect(quality.lost).toBe(0);
  });

  it("counts a packet that comes before the first one received", () => {
    const quality = new StreamQuality();
    feedInTime(quality, [2, 1, 0, 3], 0);
    expect(quality).toMatchObject({ packets: 4, expected: 4, lost: 0 });
    const wrapped = new StreamQuality();
    feedInTime(wrapped, [1, 0, 65535, 2], 65535);
    expect(wrapped).toMatchObject({ packets: 4, expected: 4, lost: 0 });
  });

  it("does not count duplicates twice, so they cannot hide loss", () => {
    const quality = new StreamQuality();
    feedInTime(quality, [1, 2, 2, 4, 4, 2, 5], 1);
    expect(quality).toMatchObject({ packets: 4, expected: 5, lost: 1 });
  });

  it("follows a restarted sequence without counting the jump as loss", () => {
    const quality = new StreamQuality();
    feedInTime(quality, [100, 101, 102, 103], 100);
    // A new source (e.g. after a re-INVITE) starts at a random sequence number.
    feedInTime(quality, [40_000, 40_001, 40_003, 40_004], 40_000);
    expect(quality).toMatchObject({ packets: 8, expected: 9, lost: 1 });
  });

  it("ignores one stray packet far from the sequence", () => {
    const quality = new StreamQuality();
    feedInTime(quality, [100, 101, 30_000, 102, 103], 100);
    expect(quality).toMatchObject({ packets: 4, expected: 4, lost: 0 });
  });
});

describe("jitter", () => {
  it("is 0 with perfect timing, and MOS is about 4.4 for G.711", () => {
    const quality = new StreamQuality();
    feed(
      quality,
      Array.from({ length: 500 }, (_, i) => i),
    );
    expect(quality.jitterMs).toBe(0);
    expect(quality.mos("PCMA")).toBeCloseTo(4.4, 1);
    expect(quality.snapshot()).toEqual({ packets: 500, lost: 0, loss_pct: 0, jitter_ms: 0, mos: 4.4, rtt_ms: null });
  });

  it("converges as RFC 3550 A.8 says for arrivals alternately 5 ms early and late", () => {
    const quality = new StreamQuality();
    const count = 40;
    for (let i = 0; i < count; i++) quality.onPacket(i, i * 160, i * 20 + (i % 2 === 0 ? 5 : -5));
    // Each transit change is 10 ms (80 units), so J_n = 80 (1 - (15/16)^n) after n changes.
    const expectedUnits = 80 * (1 - (15 / 16) ** (count - 1));
    expect(quality.jitterMs).toBeCloseTo((expectedUnits / 8000) * 1000, 9);
  });

  it("measures one late packet as a step of |D|/16", () => {
    const quality = new StreamQuality();
    quality.onPacket(0, 0, 0);
    quality.onPacket(1, 160, 36); // 16 ms late: D = 128 units
    expect(quality.jitterMs).toBeCloseTo(1, 9); // 128/16 = 8 units = 1 ms
  });

  it("uses the clock rate given", () => {
    const quality = new StreamQuality(48_000);
    quality.onPacket(0, 0, 0);
    quality.onPacket(1, 960, 36);
    expect(quality.jitterMs).toBeCloseTo(1, 9);
  });

  it("handles RTP timestamp wrap-around", () => {
    const quality = new StreamQuality();
    feed(quality, [0, 1, 2, 3], 0xffff_ffff - 200);
    expect(quality.jitterMs).toBe(0);
  });

  it("is small for sipp's real capture, sent at a steady 30 ms", () => {
    const quality = new StreamQuality();
    for (const r of readPcap(readFileSync("/usr/share/sip-tester/g711a.pcap"))) {
      const view = new DataView(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength);
      quality.onPacket(view.getUint16(2), view.getUint32(4), r.timeMs);
    }
    expect(quality).toMatchObject({ packets: 236, lost: 0 });
    expect(quality.jitterMs).toBeGreaterThan(0);
    expect(quality.jitterMs).toBeLessThan(5);
  });
});

describe("MOS", () => {
  it("follows the E-model: known values for G.711 and G.729", () => {
    // R = 93.2 - 0.48 (20 ms) = 92.72
    expect(eModelMos({ delayMs: 20, lossPct: 0, codec: "PCMU" })).toBe(4.4);
    // 5% random loss, Bpl 25.1: Ie_eff = 95 * 5 / 30.1 = 15.78, R = 76.94
    expect(eModelMos({ delayMs: 20, lossPct: 5, codec: "PCMA" })).toBe(3.9);
    // G.729: Ie 11, R = 81.72
    expect(eModelMos({ delayMs: 20, lossPct: 0, codec: "G729/8000" })).toBe(4.09);
    // Beyond 177.3 ms delay: R = 93.2 - (0.024 * 300 + 0.11 * 122.7) = 72.503
    expect(eModelMos({ delayMs: 300, lossPct: 0, codec: "PCMU" })).toBe(3.71);
    // Unknown codecs count as G.711; hopeless calls are clamped at 1.
    expect(eModelMos({ delayMs: 20, lossPct: 5, codec: "opus" })).toBe(3.9);
    expect(eModelMos({ delayMs: 1000, lossPct: 60, codec: "PCMU" })).toBe(1);
  });

  it("is null before any packet and falls with loss and jitter", () => {
    const quality = new StreamQuality();
    expect(quality.mos()).toBeNull();
    expect(quality.snapshot().mos).toBeNull();
    for (let i = 0; i < 1000; i++) if (i % 20 !== 19) quality.onPacket(i, i * 160, i * 20);
    const lossy = quality.mos("PCMA")!;
    expect(lossy).toBeLessThan(4);
    const jittery = new StreamQuality();
    for (let i = 0; i < 1000; i++) jittery.onPacket(i, i * 160, i * 20 + (i % 2) * 60);
    expect(jittery.mos("PCMA")!).toBeLessThan(4.4);
    expect(jittery.mos("G729")!).toBeLessThan(jittery.mos("PCMA")!);
  });

  it("counts the RTCP round trip as delay", () => {
    const quality = new StreamQuality();
    feed(quality, [1, 2, 3]);
    quality.onRtcpRtt(600);
    // d = 20 + 300: R = 93.2 - (7.68 + 0.11 * 142.7) = 69.823
    expect(quality.snapshot()).toMatchObject({ rtt_ms: 600, mos: 3.59 });
  });
});

/** An RTCP receiver report with one report block. */
function receiverReport(lastSr: number, delaySinceLastSr: number): Uint8Array {
  const bytes = new Uint8Array(32);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, 0x81); // V=2, one block
  view.setUint8(1, 201);
  view.setUint16(2, 7);
  view.setUint32(4, 0x1111);
  view.setUint32(8, 0x2222);
  view.setUint32(24, lastSr);
  view.setUint32(28, delaySinceLastSr);
  return bytes;
}

/** An RTCP sender report without blocks, followed by an SDES, as senders send them. */
function senderReport(ntpSeconds: number, ntpFraction: number): Uint8Array {
  const bytes = new Uint8Array(28 + 8);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, 0x80);
  view.setUint8(1, 200);
  view.setUint16(2, 6);
  view.setUint32(4, 0x2222);
  view.setUint32(8, ntpSeconds);
  view.setUint32(12, ntpFraction);
  view.setUint8(28, 0x81);
  view.setUint8(29, 202);
  view.setUint16(30, 1);
  return bytes;
}

describe("RTCP round trips", () => {
  it("computes A - LSR - DLSR from a receiver report (RFC 3550 §6.4.1 example)", () => {
    // The RFC's example: LSR 0xb705:2000, DLSR 0x0005:4000 (5.25 s), A 0xb710:8000 -> 6.125 s.
    const rtt = parseRtcpRtt(receiverReport(0xb7052000, 0x00054000), 0xb7108000);
    expect(rtt).toBeCloseTo(6125, 6);
    expect(parseRtcpRtt(receiverReport(0, 0), 0xb7108000)).toBeNull();
    expect(parseRtcpRtt(Uint8Array.of(1, 2, 3))).toBeNull();
  });

  it("converts Unix time to the middle of NTP time", () => {
    // 2020-01-01T00:00:00.5Z is NTP 3786825600 = 0xE1B65F80 seconds, and half a second is 0x8000/0x10000.
    expect(ntpMiddle32(Date.UTC(2020, 0, 1) + 500)).toBe(0x5f808000);
  });

  it("measures, at a relay, the time from a sender report passing to its answer, less DLSR", () => {
    const tracker = new RtcpRttTracker();
    expect(tracker.observe(senderReport(0xe1b65f80, 0x12345678), 1000)).toBeNull();
    const middle = 0x5f801234;
    // The receiver held the report 62.5 ms (DLSR in 1/65536 s) and answered 130 ms after it passed us.
    expect(tracker.observe(receiverReport(middle, 4096), 1130)).toBeCloseTo(67.5, 6);
    expect(tracker.observe(receiverReport(0x01020304, 0), 1200)).toBeNull(); // an unknown sender report
  });
});
