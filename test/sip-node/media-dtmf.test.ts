// RFC 4733 telephone-events, from sipp's real DTMF captures and from made-up packet sequences.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DtmfDetector } from "../../sip-node/media/dtmf.ts";
import { readPcap } from "../../sip-node/media/pcap.ts";

const CAPTURES: Record<string, string> = {
  ...Object.fromEntries(Array.from({ length: 10 }, (_, d) => [String(d), String(d)])),
  pound: "#",
  star: "*",
};

/** The telephone-event packets of a capture: payload after the 12-byte RTP header, timestamp, arrival. */
function eventPackets(name: string) {
  return readPcap(readFileSync(`/usr/share/sip-tester/dtmf_2833_${name}.pcap`)).map((r) => {
    const view = new DataView(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength);
    expect(r.payload[1]! & 0x7f).toBe(101);
    return { payload: r.payload.subarray(12), timestamp: view.getUint32(4), arrivalMs: r.timeMs };
  });
}

/** A telephone-event payload. */
function event(code: number, durationUnits: number, end = false): Uint8Array {
  return Uint8Array.of(code, (end ? 0x80 : 0) | 10, durationUnits >> 8, durationUnits & 0xff);
}

describe("DTMF from sipp's captures", () => {
  for (const [name, digit] of Object.entries(CAPTURES)) {
    it(`dtmf_2833_${name}.pcap is one "${digit}"`, () => {
      const packets = eventPackets(name);
      expect(packets).toHaveLength(10);
      const detector = new DtmfDetector("caller", packets[0]!.arrivalMs - 1500);
      for (const p of packets) detector.onPacket(p.payload, p.timestamp, p.arrivalMs);
      // The end is sent three times with duration 0x08C0 = 2240 units, 280 ms at 8 kHz.
      expect(detector.events()).toEqual([{ t: 1.5, digit, channel: "caller", ms: 280, source: "rfc4733" }]);
    });
  }

  it("reports a tone whose end packets were all lost, when asked", () => {
    const detector = new DtmfDetector("callee", 0);
    const packets = eventPackets("5").filter((p) => (p.payload[1]! & 0x80) === 0);
    for (const p of packets) detector.onPacket(p.payload, p.timestamp, p.arrivalMs);
    const events = detector.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ digit: "5", channel: "callee", ms: 240 }); // the last update: 0x0780
    expect(detector.events()).toEqual(events); // asking again does not add it twice
  });
});

describe("DTMF sequences", () => {
  it("tells tones apart by timestamp, even the same digit twice", () => {
    const detector = new DtmfDetector("caller", 1000);
    for (const [i, code] of [1, 1, 11].entries()) {
      const timestamp = 8000 + i * 4000;
      const at = 2000 + i * 500;
      detector.onPacket(event(code, 0), timestamp, at);
      detector.onPacket(event(code, 400), timestamp, at + 50);
      for (let r = 0; r < 3; r++) detector.onPacket(event(code, 800, true), timestamp, at + 100);
    }
    expect(detector.events().map((e) => [e.t, e.digit, e.ms])).toEqual([
      [1, "1", 100],
      [1.5, "1", 100],
      [2, "#", 100],
    ]);
  });

  it("reports a tone without its end when the next one begins", () => {
    const detector = new DtmfDetector("caller", 0);
    detector.onPacket(event(2, 0), 100, 10);
    detector.onPacket(event(2, 320), 100, 50);
    detector.onPacket(event(3, 0), 900, 500);
    expect(detector.events().map((e) => [e.digit, e.ms])).toEqual([
      ["2", 40],
      ["3", 0],
    ]);
  });

  it("does not turn a late retransmitted end into a new tone", () => {
    const detector = new DtmfDetector("caller", 0);
    detector.onPacket(event(7, 800, true), 100, 10);
    detector.onPacket(event(8, 0), 900, 500);
    detector.onPacket(event(7, 800, true), 100, 510);
    detector.onPacket(event(8, 800, true), 900, 600);
    expect(detector.events().map((e) => e.digit)).toEqual(["7", "8"]);
  });

  it("maps the event codes 10-15 to *, #, A-D and ignores other events", () => {
    const detector = new DtmfDetector("caller", 0);
    for (const code of [10, 11, 12, 13, 14, 15, 16, 40]) detector.onPacket(event(code, 160, true), code * 1000, code);
    detector.onPacket(Uint8Array.of(1, 2), 99_000, 99); // too short to be an event
    expect(
      detector
        .events()
        .map((e) => e.digit)
        .join(""),
    ).toBe("*#ABCD");
  });

  it("keeps at most 1000 events", () => {
    const detector = new DtmfDetector("caller", 0);
    for (let i = 0; i < 1200; i++) detector.onPacket(event(i % 10, 160, true), i * 1000, i);
    expect(detector.events()).toHaveLength(1000);
  });
});
