// pcap writing and reading, checked against the real G.711 capture sipp ships.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PcapWriter, encodePcap, readPcap, writePcapFile, type PcapRecord } from "../../sip-node/media/pcap.ts";
import { until } from "./wait.ts";

const G711A_PCAP = "/usr/share/sip-tester/g711a.pcap";
const dir = mkdtempSync(join(tmpdir(), "media-pcap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const capture = () => readPcap(readFileSync(G711A_PCAP));
const rtpSequence = (payload: Uint8Array) => (payload[2]! << 8) | payload[3]!;

/** The one's complement sum of 16-bit words, folded: 0xFFFF over a header whose checksum is right. */
function foldedSum(bytes: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 2) sum += (bytes[i]! << 8) | (bytes[i + 1] ?? 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

/** The frames of a classic little-endian pcap, with their offsets. */
function frames(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  for (let at = 24; at + 16 <= bytes.length; at += 16 + view.getUint32(at + 8, true)) {
    out.push(bytes.subarray(at + 16, at + 16 + view.getUint32(at + 8, true)));
  }
  return out;
}

/** The same capture with another link layer (replacing the 14-byte Ethernet header) or byte order. */
function relink(bytes: Uint8Array, linkType: number, linkHeader: (ethernet: Uint8Array) => Uint8Array, bigEndian = false): Uint8Array {
  const parts: Uint8Array[] = [];
  const header = bytes.slice(0, 24);
  const headerView = new DataView(header.buffer);
  headerView.setUint32(0, 0xa1b2c3d4, !bigEndian);
  headerView.setUint16(4, 2, !bigEndian);
  headerView.setUint16(6, 4, !bigEndian);
  headerView.setUint32(16, 65535, !bigEndian);
  headerView.setUint32(20, linkType, !bigEndian);
  parts.push(header);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 24; at + 16 <= bytes.length;) {
    const length = view.getUint32(at + 8, true);
    const frame = bytes.subarray(at + 16, at + 16 + length);
    const body = new Uint8Array([...linkHeader(frame.subarray(0, 14)), ...frame.subarray(14)]);
    const record = new Uint8Array(16);
    const recordView = new DataView(record.buffer);
    recordView.setUint32(0, view.getUint32(at, true), !bigEndian);
    recordView.setUint32(4, view.getUint32(at + 4, true), !bigEndian);
    recordView.setUint32(8, body.length, !bigEndian);
    recordView.setUint32(12, body.length, !bigEndian);
    parts.push(record, body);
    at += 16 + length;
  }
  return new Uint8Array(parts.flatMap((p) => [...p]));
}

describe("readPcap", () => {
  it("reads the 236 RTP packets of sipp's g711a.pcap", () => {
    const records = capture();
    expect(records).toHaveLength(236);
    expect(records[0]!.src).toEqual({ address: "10.1.3.143", port: 5000 });
    expect(records[0]!.dst).toEqual({ address: "10.1.6.18", port: 2006 });
    for (const r of records) {
      expect(r.payload.length).toBe(12 + 240);
      expect(r.payload[0]! >> 6).toBe(2); // RTP version 2
      expect(r.payload[1]! & 0x7f).toBe(8); // PCMA
    }
    const seconds = (records.at(-1)!.timeMs - records[0]!.timeMs) / 1000;
    expect(seconds).toBeCloseTo(7.05, 2);
    expect(records.map((r) => rtpSequence(r.payload))).toEqual(records.map((_, i) => rtpSequence(records[0]!.payload) + i));
  });

  it("reads Linux cooked, raw IP and big-endian captures of the same packets", () => {
    const bytes = new Uint8Array(readFileSync(G711A_PCAP));
    const expected = capture().map((r) => ({ ...r, payload: [...r.payload] }));
    const sll = (ethernet: Uint8Array) => Uint8Array.of(0, 0, 0, 1, 0, 6, ...ethernet.subarray(6, 12), 0, 0, 0x08, 0x00);
    const sll2 = () => Uint8Array.of(0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0);
    const vlan = (ethernet: Uint8Array) => Uint8Array.of(...ethernet.subarray(0, 12), 0x81, 0x00, 0x00, 0x2a, 0x08, 0x00);
    for (const [linkType, header, bigEndian] of [
      [113, sll, false],
      [276, sll2, false],
      [101, () => new Uint8Array(0), false],
      [1, (e: Uint8Array) => e, true],
      [1, vlan, true],
    ] as const) {
      const records = readPcap(relink(bytes, linkType, header, bigEndian));
      expect(
        records.map((r) => ({ ...r, payload: [...r.payload] })),
        `link type ${linkType}`,
      ).toEqual(expected);
    }
  });

  it("refuses pcapng and unknown files", () => {
    expect(() => readPcap(Uint8Array.of(0x0a, 0x0d, 0x0d, 0x0a, ...new Array(28).fill(0)))).toThrow(/pcapng/);
    expect(() => readPcap(new Uint8Array(40))).toThrow(/not a pcap/);
  });
});

describe("writing pcaps", () => {
  it("writes packets Wireshark decodes: Ethernet, IPv4 with its checksum, UDP", async () => {
    const records = capture();
    const path = join(dir, "copy.pcap");
    const writer = new PcapWriter(path);
    for (const r of records) writer.write(r.timeMs, r.src, r.dst, r.payload);
    const summary = await writer.close();
    const bytes = new Uint8Array(readFileSync(path));
    expect(summary).toEqual({ path, bytes: bytes.length, packets: 236 });
    expect(bytes.length).toBe(24 + 236 * (16 + 14 + 20 + 8 + 252));
    const header = new DataView(bytes.buffer, bytes.byteOffset, 24);
    expect(header.getUint32(0, true)).toBe(0xa1b2c3d4);
    expect(header.getUint32(20, true)).toBe(1);
    for (const frame of frames(bytes)) {
      expect((frame[12]! << 8) | frame[13]!).toBe(0x0800);
      const ip = frame.subarray(14, 34);
      expect(ip[0]).toBe(0x45);
      expect(foldedSum(ip)).toBe(0xffff);
      expect((ip[2]! << 8) | ip[3]!).toBe(frame.length - 14);
      expect((frame[38]! << 8) | frame[39]!).toBe(frame.length - 34); // UDP length
    }
    const back = readPcap(bytes);
    expect(back.map((r) => [r.src, r.dst, [...r.payload]])).toEqual(records.map((r) => [r.src, r.dst, [...r.payload]]));
    back.forEach((r, i) => expect(Math.abs(r.timeMs - records[i]!.timeMs)).toBeLessThan(0.001));
  });

  it("writes IPv6 with a correct UDP checksum, and IPv4-mapped addresses as IPv4", () => {
    const payload = Uint8Array.from({ length: 171 }, (_, i) => (i * 7) & 0xff); // odd length
    const from = { address: "2001:db8::10", port: 40000 };
    const to = { address: "fe80::1:0:0:2%eth0", port: 5004 };
    const mappedFrom = { address: "::ffff:192.0.2.1", port: 1 };
    const bytes = encodePcap([
      { timeMs: 1_700_000_000_123.456, src: from, dst: to, payload },
      { timeMs: 1_700_000_000_200, src: mappedFrom, dst: { address: "192.0.2.2", port: 2 }, payload },
    ]);
    const [v6, v4] = frames(bytes);
    expect((v6![12]! << 8) | v6![13]!).toBe(0x86dd);
    const ip = v6!.subarray(14);
    const udp = ip.subarray(40);
    // The checksum over pseudo-header (addresses, length, protocol) and datagram sums to 0xFFFF.
    const pseudo = Uint8Array.of(...ip.subarray(8, 40), 0, 0, udp.length >> 8, udp.length & 0xff, 0, 0, 0, 17);
    expect(foldedSum(new Uint8Array([...pseudo, ...udp]))).toBe(0xffff);
    expect((v4![12]! << 8) | v4![13]!).toBe(0x0800);
    const records = readPcap(bytes);
    expect(records[0]).toMatchObject({ src: from, dst: { address: "fe80::1:0:0:2", port: 5004 } });
    expect(records[0]!.timeMs).toBeCloseTo(1_700_000_000_123.456, 3);
    expect(records[1]).toMatchObject({ src: { address: "192.0.2.1", port: 1 }, dst: { address: "192.0.2.2", port: 2 } });
    expect([...records[1]!.payload]).toEqual([...payload]);
  });

  it("writes a derived capture for sipp: g711a.pcap with every 20th packet dropped", () => {
    const kept: PcapRecord[] = capture().filter((_, i) => i % 20 !== 19);
    const path = join(dir, "g711a-5pct-loss.pcap");
    const summary = writePcapFile(path, kept);
    expect(summary).toMatchObject({ path, packets: 225 });
    const back = readPcap(readFileSync(path));
    expect(back.map((r) => rtpSequence(r.payload))).toEqual(kept.map((r) => rtpSequence(r.payload)));
    expect(back[0]).toMatchObject({ src: kept[0]!.src, dst: kept[0]!.dst });
  });

  it("stops at maxBytes and counts what it dropped", async () => {
    const records = capture();
    const path = join(dir, "capped.pcap");
    const perPacket = 16 + 14 + 20 + 8 + 252;
    const writer = new PcapWriter(path, { maxBytes: 24 + 10 * perPacket + 5 });
    for (const r of records) writer.write(r.timeMs, r.src, r.dst, r.payload);
    expect(await writer.close()).toEqual({ path, bytes: 24 + 10 * perPacket, packets: 10 });
    expect(writer.dropped).toBe(226);
    expect(readPcap(readFileSync(path))).toHaveLength(10);
  });

  it("writes progressively: a long capture reaches the file before close", async () => {
    const path = join(dir, "progressive.pcap");
    const writer = new PcapWriter(path);
    const payload = new Uint8Array(172);
    const from = { address: "127.0.0.1", port: 20000 };
    const to = { address: "127.0.0.1", port: 20002 };
    for (let i = 0; i < 5000; i++) writer.write(1_700_000_000_000 + i * 20, from, to, payload);
    await until("the first chunks written", () => existsSync(path) && readFileSync(path).length > 64 * 1024);
    const partial = readFileSync(path).length;
    expect(partial).toBeGreaterThan(64 * 1024);
    const summary = await writer.close();
    expect(partial).toBeLessThan(summary.bytes);
    expect(readPcap(readFileSync(path))).toHaveLength(5000);
  });

  it("keeps each capture's packets when the chunks one has written are filled again by another", async () => {
    const from = { address: "127.0.0.1", port: 20000 };
    const to = { address: "127.0.0.1", port: 20002 };
    const captures = ["a", "b"].map((name, w) => {
      const path = join(dir, `shared-${name}.pcap`);
      const records: PcapRecord[] = Array.from({ length: 3000 }, (_, i) => ({
        timeMs: 1_700_000_000_000 + i * 20,
        src: from,
        dst: to,
        payload: Uint8Array.from({ length: 172 }, (_, k) => (w * 101 + i * 7 + k) & 0xff),
      }));
      return { path, records, writer: new PcapWriter(path) };
    });
    // In turns, letting writes complete in between, so a chunk written for one is reused by the other.
    for (let from = 0; from < 3000; from += 300) {
      for (const c of captures) for (const r of c.records.slice(from, from + 300)) c.writer.write(r.timeMs, r.src, r.dst, r.payload);
      await new Promise((r) => setTimeout(r, 5)); // deliberate: room for the writes between turns
    }
    for (const c of captures) {
      await c.writer.close();
      expect(new Uint8Array(readFileSync(c.path))).toEqual(encodePcap(c.records));
    }
  });

  it("reports a file it cannot write when closed, without throwing before", async () => {
    const writer = new PcapWriter(join(dir, "missing-dir", "x.pcap"));
    writer.write(0, { address: "127.0.0.1", port: 1 }, { address: "127.0.0.1", port: 2 }, new Uint8Array(4));
    await expect(writer.close()).rejects.toThrow(/ENOENT/);
  });
});
