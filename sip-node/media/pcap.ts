// Classic libpcap capture files (not pcapng). Writing: microsecond timestamps, Ethernet link
// type, and synthetic Ethernet + IPv4/IPv6 + UDP headers around each UDP payload, so Wireshark
// decodes a call's RTP and sipp's play_pcap_audio can replay it. Reading: Ethernet, Linux
// cooked (SLL and SLL2), raw IP and BSD loopback captures of UDP over IPv4 or IPv6, in either
// byte order, with microsecond or nanosecond timestamps.
import { createWriteStream, writeFileSync, type WriteStream } from "node:fs";
import { BufferPool, endStream } from "./file-output.ts";
import { SPOOL_FILE_MODE } from "./spool.ts";

export type PcapEndpoint = { address: string; port: number };
export type PcapRecord = { timeMs: number; src: PcapEndpoint; dst: PcapEndpoint; payload: Uint8Array };
export type PcapWriterOptions = { /** Packets that would take the file past this size are dropped. */ maxBytes?: number };
export type PcapFileSummary = { path: string; bytes: number; packets: number };

const MAGIC_MICROSECONDS = 0xa1b2c3d4;
const MAGIC_NANOSECONDS = 0xa1b23c4d;
const MAGIC_PCAPNG = 0x0a0d0d0a;
const LINKTYPE_NULL = 0;
const LINKTYPE_ETHERNET = 1;
const LINKTYPE_RAW = 101;
const LINKTYPE_LINUX_SLL = 113;
const LINKTYPE_LINUX_SLL2 = 276;
const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
const ETHERTYPE_VLAN = [0x8100, 0x88a8];
const IPPROTO_UDP = 17;

const FILE_HEADER_BYTES = 24;
const RECORD_HEADER_BYTES = 16;
const ETHERNET_BYTES = 14;
const IPV4_BYTES = 20;
const IPV6_BYTES = 40;
const UDP_BYTES = 8;
const MAX_UDP_PAYLOAD = 65_535 - IPV6_BYTES - UDP_BYTES;
const SNAPLEN = 262_144;
const CHUNK_BYTES = 64 * 1024;
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const ADDRESS_CACHE_SIZE = 256;

// Locally administered MACs: the capture has no real link layer to show.
const SOURCE_MAC = [0x02, 0, 0, 0, 0, 0x01];
const DESTINATION_MAC = [0x02, 0, 0, 0, 0, 0x02];

/** Chunks the file streams have finished writing, shared by all writers. */
const chunks = new BufferPool(CHUNK_BYTES);

/** Writes packets to a pcap file progressively, in 64 KB chunks; close() completes the file. */
export class PcapWriter {
  readonly path: string;
  private readonly maxBytes: number;
  private readonly stream: WriteStream;
  private readonly addresses = new Map<string, Uint8Array>();
  private chunk = new Uint8Array(chunks.take(CHUNK_BYTES));
  private chunkView = new DataView(this.chunk.buffer);
  private chunkUsed = 0;
  private acceptedBytes = 0;
  private packetCount = 0;
  private droppedCount = 0;
  private nextIpId = 0;
  private error: Error | null = null;
  private closing: Promise<PcapFileSummary> | null = null;

  constructor(path: string, options: PcapWriterOptions = {}) {
    this.path = path;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.stream = createWriteStream(path, { mode: SPOOL_FILE_MODE });
    // Without a listener a failed open or write would crash the process; close() reports it.
    this.stream.on("error", (error) => (this.error ??= error));
    writeFileHeader(this.chunkView);
    this.chunkUsed = FILE_HEADER_BYTES;
    this.acceptedBytes = FILE_HEADER_BYTES;
  }

  get packets(): number {
    return this.packetCount;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  get bytes(): number {
    return this.acceptedBytes;
  }

  /** Adds one UDP datagram; timeMs is wall-clock time in milliseconds since the Unix epoch. */
  write(timeMs: number, from: PcapEndpoint, to: PcapEndpoint, udpPayload: Uint8Array): void {
    const source = this.addressBytes(from.address);
    const destination = this.addressBytes(to.address);
    const recordBytes = RECORD_HEADER_BYTES + frameBytes(source, destination, udpPayload.length);
    if (this.closing || this.error || udpPayload.length > MAX_UDP_PAYLOAD || this.acceptedBytes + recordBytes > this.maxBytes) {
      this.droppedCount++;
      return;
    }
    if (this.chunkUsed + recordBytes > this.chunk.length) this.flushChunk(recordBytes);
    this.nextIpId = (this.nextIpId + 1) & 0xffff;
    const packet = { timeMs, source, sourcePort: from.port, destination, destinationPort: to.port, ipId: this.nextIpId };
    this.chunkUsed += writeRecord(this.chunk, this.chunkView, this.chunkUsed, packet, udpPayload);
    this.acceptedBytes += recordBytes;
    this.packetCount++;
  }

  /** Writes what is buffered and closes the file; rejects if the file could not be written. */
  close(): Promise<PcapFileSummary> {
    this.closing ??= (async () => {
      this.flushChunk(0);
      await endStream(this.stream, () => this.error);
      return { path: this.path, bytes: this.acceptedBytes, packets: this.packetCount };
    })();
    return this.closing;
  }

  /** Hands the filled chunk to the stream and starts a new one with room for nextRecordBytes. */
  private flushChunk(nextRecordBytes: number): void {
    const filled = this.chunk;
    // Once the stream has written it (or failed to), the chunk can be filled again.
    if (this.chunkUsed > 0) this.stream.write(filled.subarray(0, this.chunkUsed), () => chunks.give(filled.buffer));
    else chunks.give(filled.buffer);
    this.chunk = new Uint8Array(chunks.take(nextRecordBytes));
    this.chunkView = new DataView(this.chunk.buffer);
    this.chunkUsed = 0;
  }

  private addressBytes(address: string): Uint8Array {
    let bytes = this.addresses.get(address);
    if (!bytes) {
      bytes = parseAddress(address);
      if (this.addresses.size >= ADDRESS_CACHE_SIZE) this.addresses.clear();
      this.addresses.set(address, bytes);
    }
    return bytes;
  }
}

/** A whole pcap file in memory holding the given packets. */
export function encodePcap(records: readonly PcapRecord[]): Uint8Array {
  const packets = records.map((r, i) => ({
    timeMs: r.timeMs,
    source: parseAddress(r.src.address),
    sourcePort: r.src.port,
    destination: parseAddress(r.dst.address),
    destinationPort: r.dst.port,
    ipId: (i + 1) & 0xffff,
  }));
  let total = FILE_HEADER_BYTES;
  packets.forEach((p, i) => (total += RECORD_HEADER_BYTES + frameBytes(p.source, p.destination, records[i]!.payload.length)));
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  writeFileHeader(view);
  let offset = FILE_HEADER_BYTES;
  packets.forEach((packet, i) => (offset += writeRecord(bytes, view, offset, packet, records[i]!.payload)));
  return bytes;
}

/**
 * Writes packets (e.g. a capture with some packets removed) as an Ethernet pcap file, at once:
 * a helper for tests and benchmarks preparing what sipp plays, not for calls.
 */
export function writePcapFile(path: string, records: readonly PcapRecord[]): PcapFileSummary {
  const bytes = encodePcap(records);
  writeFileSync(path, bytes);
  return { path, bytes: bytes.length, packets: records.length };
}

/** Every UDP datagram in a pcap file; payloads are views into bytes. */
export function readPcap(bytes: Uint8Array): PcapRecord[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < FILE_HEADER_BYTES) throw new Error("not a pcap file: too short");
  const { littleEndian, fractionPerMs } = readMagic(view.getUint32(0, true));
  const linkType = view.getUint32(20, littleEndian) & 0xffff;
  const records: PcapRecord[] = [];
  for (let offset = FILE_HEADER_BYTES; offset + RECORD_HEADER_BYTES <= bytes.length;) {
    const seconds = view.getUint32(offset, littleEndian);
    const fraction = view.getUint32(offset + 4, littleEndian);
    const capturedBytes = view.getUint32(offset + 8, littleEndian);
    const start = offset + RECORD_HEADER_BYTES;
    if (start + capturedBytes > bytes.length) break; // a capture cut short while writing
    const frame = bytes.subarray(start, start + capturedBytes);
    const datagram = readDatagram(frame, linkType);
    if (datagram) records.push({ timeMs: seconds * 1000 + fraction / fractionPerMs, ...datagram });
    offset = start + capturedBytes;
  }
  return records;
}

function readMagic(magicLittleEndian: number): { littleEndian: boolean; fractionPerMs: number } {
  switch (magicLittleEndian) {
    case MAGIC_MICROSECONDS:
      return { littleEndian: true, fractionPerMs: 1_000 };
    case MAGIC_NANOSECONDS:
      return { littleEndian: true, fractionPerMs: 1_000_000 };
    case byteSwap32(MAGIC_MICROSECONDS):
      return { littleEndian: false, fractionPerMs: 1_000 };
    case byteSwap32(MAGIC_NANOSECONDS):
      return { littleEndian: false, fractionPerMs: 1_000_000 };
    case MAGIC_PCAPNG:
      throw new Error("pcapng files are not supported; save as classic pcap");
    default:
      throw new Error("not a pcap file: unknown magic number");
  }
}

function byteSwap32(value: number): number {
  return (((value & 0xff) << 24) | ((value & 0xff00) << 8) | ((value >>> 8) & 0xff00) | (value >>> 24)) >>> 0;
}

type Datagram = Omit<PcapRecord, "timeMs">;

function readDatagram(frame: Uint8Array, linkType: number): Datagram | null {
  const ipOffset = networkLayerOffset(frame, linkType);
  if (ipOffset < 0 || ipOffset >= frame.length) return null;
  const version = frame[ipOffset]! >> 4;
  if (version === 4) return readIpv4(frame, ipOffset);
  if (version === 6) return readIpv6(frame, ipOffset);
  return null;
}

/** Where the IP header starts in a frame of the given link type, or -1 if it is not IP. */
function networkLayerOffset(frame: Uint8Array, linkType: number): number {
  switch (linkType) {
    case LINKTYPE_ETHERNET: {
      let offset = 12;
      while (offset + 2 <= frame.length && ETHERTYPE_VLAN.includes(readUint16(frame, offset))) offset += 4;
      if (offset + 2 > frame.length) return -1;
      const etherType = readUint16(frame, offset);
      return etherType === ETHERTYPE_IPV4 || etherType === ETHERTYPE_IPV6 ? offset + 2 : -1;
    }
    case LINKTYPE_LINUX_SLL:
      return frame.length >= 16 && isIpEtherType(readUint16(frame, 14)) ? 16 : -1;
    case LINKTYPE_LINUX_SLL2:
      return frame.length >= 20 && isIpEtherType(readUint16(frame, 0)) ? 20 : -1;
    case LINKTYPE_NULL:
      return 4; // the address family is in the capturing host's byte order; the IP version says enough
    case LINKTYPE_RAW:
      return 0;
    default:
      throw new Error(`unsupported pcap link type ${linkType}`);
  }
}

function isIpEtherType(etherType: number): boolean {
  return etherType === ETHERTYPE_IPV4 || etherType === ETHERTYPE_IPV6;
}

function readIpv4(frame: Uint8Array, offset: number): Datagram | null {
  if (offset + IPV4_BYTES > frame.length) return null;
  const headerBytes = (frame[offset]! & 0x0f) * 4;
  const totalLength = readUint16(frame, offset + 2);
  const fragment = readUint16(frame, offset + 6) & 0x3fff; // more-fragments flag and offset
  if (frame[offset + 9] !== IPPROTO_UDP || fragment !== 0 || headerBytes < IPV4_BYTES) return null;
  const end = Math.min(frame.length, offset + totalLength);
  const source = formatIpv4(frame.subarray(offset + 12, offset + 16));
  const destination = formatIpv4(frame.subarray(offset + 16, offset + 20));
  return readUdp(frame, offset + headerBytes, end, source, destination);
}

const IPV6_SKIPPABLE_HEADERS = [0, 43, 60]; // hop-by-hop, routing, destination options
const IPV6_FRAGMENT_HEADER = 44;

function readIpv6(frame: Uint8Array, offset: number): Datagram | null {
  if (offset + IPV6_BYTES > frame.length) return null;
  const end = Math.min(frame.length, offset + IPV6_BYTES + readUint16(frame, offset + 4));
  let nextHeader = frame[offset + 6]!;
  let headerOffset = offset + IPV6_BYTES;
  while (IPV6_SKIPPABLE_HEADERS.includes(nextHeader) && headerOffset + 2 <= end) {
    nextHeader = frame[headerOffset]!;
    headerOffset += (frame[headerOffset + 1]! + 1) * 8;
  }
  if (nextHeader === IPV6_FRAGMENT_HEADER || nextHeader !== IPPROTO_UDP) return null;
  const source = formatIpv6(frame.subarray(offset + 8, offset + 24));
  const destination = formatIpv6(frame.subarray(offset + 24, offset + 40));
  return readUdp(frame, headerOffset, end, source, destination);
}

function readUdp(frame: Uint8Array, offset: number, end: number, source: string, destination: string): Datagram | null {
  if (offset + UDP_BYTES > end) return null;
  const udpLength = readUint16(frame, offset + 4);
  if (udpLength < UDP_BYTES) return null;
  return {
    src: { address: source, port: readUint16(frame, offset) },
    dst: { address: destination, port: readUint16(frame, offset + 2) },
    payload: frame.subarray(offset + UDP_BYTES, Math.min(end, offset + udpLength)),
  };
}

function readUint16(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! << 8) | bytes[offset + 1]!;
}

type PacketHeaders = {
  timeMs: number;
  source: Uint8Array;
  sourcePort: number;
  destination: Uint8Array;
  destinationPort: number;
  ipId: number;
};

function writeFileHeader(view: DataView): void {
  view.setUint32(0, MAGIC_MICROSECONDS, true);
  view.setUint16(4, 2, true); // version 2.4
  view.setUint16(6, 4, true);
  view.setInt32(8, 0, true); // timestamps are UTC
  view.setUint32(12, 0, true);
  view.setUint32(16, SNAPLEN, true);
  view.setUint32(20, LINKTYPE_ETHERNET, true);
}

/** The Ethernet frame size: IPv6 if either address is (parseAddress turns IPv4-mapped ones into IPv4). */
function frameBytes(source: Uint8Array, destination: Uint8Array, payloadBytes: number): number {
  const ipBytes = source.length === 16 || destination.length === 16 ? IPV6_BYTES : IPV4_BYTES;
  return ETHERNET_BYTES + ipBytes + UDP_BYTES + payloadBytes;
}

/** Writes the record header and frame at offset; returns the bytes written. */
function writeRecord(target: Uint8Array, view: DataView, offset: number, packet: PacketHeaders, payload: Uint8Array): number {
  const ipv6 = packet.source.length === 16 || packet.destination.length === 16;
  const frameLength = frameBytes(packet.source, packet.destination, payload.length);
  const seconds = Math.floor(packet.timeMs / 1000);
  const microseconds = Math.min(999_999, Math.round((packet.timeMs - seconds * 1000) * 1000));
  view.setUint32(offset, seconds, true);
  view.setUint32(offset + 4, microseconds, true);
  view.setUint32(offset + 8, frameLength, true);
  view.setUint32(offset + 12, frameLength, true);
  let at = offset + RECORD_HEADER_BYTES;
  target.set(DESTINATION_MAC, at);
  target.set(SOURCE_MAC, at + 6);
  view.setUint16(at + 12, ipv6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
  at += ETHERNET_BYTES;
  const udpOffset = ipv6
    ? writeIpv6Header(target, view, at, packet, payload.length)
    : writeIpv4Header(target, view, at, packet, payload.length);
  view.setUint16(udpOffset, packet.sourcePort);
  view.setUint16(udpOffset + 2, packet.destinationPort);
  view.setUint16(udpOffset + 4, UDP_BYTES + payload.length);
  view.setUint16(udpOffset + 6, 0);
  target.set(payload, udpOffset + UDP_BYTES);
  // IPv4 allows a zero (absent) UDP checksum; IPv6 does not.
  if (ipv6) view.setUint16(udpOffset + 6, udpIpv6Checksum(target, at, udpOffset, UDP_BYTES + payload.length));
  return RECORD_HEADER_BYTES + frameLength;
}

function writeIpv4Header(target: Uint8Array, view: DataView, at: number, packet: PacketHeaders, payloadBytes: number): number {
  view.setUint8(at, 0x45);
  view.setUint8(at + 1, 0);
  view.setUint16(at + 2, IPV4_BYTES + UDP_BYTES + payloadBytes);
  view.setUint16(at + 4, packet.ipId);
  view.setUint16(at + 6, 0x4000); // don't fragment
  view.setUint8(at + 8, 64);
  view.setUint8(at + 9, IPPROTO_UDP);
  view.setUint16(at + 10, 0);
  target.set(packet.source, at + 12);
  target.set(packet.destination, at + 16);
  view.setUint16(at + 10, internetChecksum(target, at, at + IPV4_BYTES, 0));
  return at + IPV4_BYTES;
}

function writeIpv6Header(target: Uint8Array, view: DataView, at: number, packet: PacketHeaders, payloadBytes: number): number {
  view.setUint32(at, 0x60000000);
  view.setUint16(at + 4, UDP_BYTES + payloadBytes);
  view.setUint8(at + 6, IPPROTO_UDP);
  view.setUint8(at + 7, 64);
  target.set(toIpv6(packet.source), at + 8);
  target.set(toIpv6(packet.destination), at + 24);
  return at + IPV6_BYTES;
}

/** The UDP checksum over the IPv6 pseudo-header (RFC 8200 §8.1) and the datagram. */
function udpIpv6Checksum(frame: Uint8Array, ipOffset: number, udpOffset: number, udpLength: number): number {
  const pseudoHeaderSum = internetSum(frame, ipOffset + 8, ipOffset + 40, udpLength + IPPROTO_UDP);
  const checksum = internetChecksum(frame, udpOffset, udpOffset + udpLength, pseudoHeaderSum);
  return checksum === 0 ? 0xffff : checksum;
}

/** The one's complement sum (RFC 1071) of bytes [start, end), not yet folded, added to initial. */
function internetSum(bytes: Uint8Array, start: number, end: number, initial: number): number {
  let sum = initial;
  for (let i = start; i + 1 < end; i += 2) sum += (bytes[i]! << 8) | bytes[i + 1]!;
  if ((end - start) & 1) sum += bytes[end - 1]! << 8;
  return sum;
}

function internetChecksum(bytes: Uint8Array, start: number, end: number, initial: number): number {
  let sum = internetSum(bytes, start, end, initial);
  while (sum > 0xffff) sum = (sum & 0xffff) + Math.floor(sum / 0x10000);
  return ~sum & 0xffff;
}

function toIpv6(address: Uint8Array): Uint8Array {
  if (address.length === 16) return address;
  const mapped = new Uint8Array(16);
  mapped[10] = 0xff;
  mapped[11] = 0xff;
  mapped.set(address, 12);
  return mapped;
}

/** The 4 bytes of an IPv4 address (IPv4-mapped IPv6 included) or the 16 of an IPv6 one. */
export function parseAddress(address: string): Uint8Array {
  const bytes = address.includes(":") ? parseIpv6(address) : parseIpv4(address);
  if (!bytes) throw new Error(`not an IP address: ${address}`);
  const mapped = bytes.length === 16 && bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return Uint8Array.from(parts, Number);
}

function parseIpv6(text: string): Uint8Array | null {
  const unscoped = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const halves = unscoped.split("::");
  if (halves.length > 2) return null;
  const head = parseIpv6Groups(halves[0]!);
  const tail = halves.length === 2 ? parseIpv6Groups(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** The 16-bit groups of one side of "::", with a trailing dotted IPv4 part as two groups. */
function parseIpv6Groups(text: string): number[] | null {
  if (text === "") return [];
  const groups: number[] = [];
  const parts = text.split(":");
  for (const [i, part] of parts.entries()) {
    if (i === parts.length - 1 && part.includes(".")) {
      const ipv4 = parseIpv4(part);
      if (!ipv4) return null;
      groups.push((ipv4[0]! << 8) | ipv4[1]!, (ipv4[2]! << 8) | ipv4[3]!);
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function formatIpv4(bytes: Uint8Array): string {
  return bytes.join(".");
}

/** RFC 5952 text: lowercase, leading zeros dropped, the longest run of two or more zero groups as "::". */
function formatIpv6(bytes: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
