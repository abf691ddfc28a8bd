// The fixed RTP header (RFC 3550 §5.1), read and rewritten in place on the relay's hot path:
// no packet objects, only offsets into the datagram Node already allocated.

export const RTP_HEADER_BYTES = 12;

/** RTCP packet types 200-204 share the second byte with RTP's marker and payload type (RFC 5761 §4). */
export function isRtcp(packet: Uint8Array): boolean {
  const type = packet[1]!;
  return type >= 200 && type <= 204;
}

/** A datagram that can be RTP version 2 with a whole fixed header. */
export function isRtp(packet: Uint8Array): boolean {
  return packet.length >= RTP_HEADER_BYTES && packet[0]! >> 6 === 2;
}

export const payloadType = (packet: Uint8Array): number => packet[1]! & 0x7f;
export const sequenceOf = (packet: Uint8Array): number => (packet[2]! << 8) | packet[3]!;
export const timestampOf = (packet: Uint8Array): number => ((packet[4]! << 24) | (packet[5]! << 16) | (packet[6]! << 8) | packet[7]!) >>> 0;
export const ssrcOf = (packet: Uint8Array): number => ((packet[8]! << 24) | (packet[9]! << 16) | (packet[10]! << 8) | packet[11]!) >>> 0;

export function writeSequence(packet: Uint8Array, value: number): void {
  packet[2] = (value >>> 8) & 0xff;
  packet[3] = value & 0xff;
}

export function writeTimestamp(packet: Uint8Array, value: number): void {
  packet[4] = (value >>> 24) & 0xff;
  packet[5] = (value >>> 16) & 0xff;
  packet[6] = (value >>> 8) & 0xff;
  packet[7] = value & 0xff;
}

export function writeSsrc(packet: Uint8Array, value: number): void {
  packet[8] = (value >>> 24) & 0xff;
  packet[9] = (value >>> 16) & 0xff;
  packet[10] = (value >>> 8) & 0xff;
  packet[11] = value & 0xff;
}

/**
 * Where the payload starts (after CSRCs and a header extension) and ends (before padding);
 * -1 when the lengths the header claims do not fit the datagram.
 */
export function payloadStart(packet: Uint8Array): number {
  let start = RTP_HEADER_BYTES + (packet[0]! & 0x0f) * 4;
  if (packet[0]! & 0x10) {
    if (packet.length < start + 4) return -1;
    start += 4 + ((packet[start + 2]! << 8) | packet[start + 3]!) * 4;
  }
  return start <= payloadEnd(packet) ? start : -1;
}

export function payloadEnd(packet: Uint8Array): number {
  return packet[0]! & 0x20 ? packet.length - packet[packet.length - 1]! : packet.length;
}

/**
 * Keeps one outgoing stream per direction: when the sender's SSRC changes (a new media server,
 * a transfer), the relay goes on with the first SSRC and continuous sequence numbers and
 * timestamps, so the far end's jitter buffer sees one stream instead of a reset.
 */
export class StreamContinuity {
  private ssrc: number | null = null;
  private inputSsrc = 0;
  private seqOffset = 0;
  private tsOffset = 0;
  private lastSeq = 0;
  private lastTs = 0;
  private lastArrival = 0;

  /** Rewrites the header in place when the sender has changed since the first packet. */
  apply(packet: Uint8Array, arrivalMs: number, clockRate = 8000): void {
    const ssrc = ssrcOf(packet);
    if (this.ssrc === null) {
      this.ssrc = ssrc;
      this.inputSsrc = ssrc;
    } else if (ssrc !== this.inputSsrc) {
      // Continue one packet (or the elapsed time) after the last packet we sent.
      const elapsed = Math.max(1, Math.round(((arrivalMs - this.lastArrival) * clockRate) / 1000));
      this.seqOffset = (this.lastSeq + 1 - sequenceOf(packet)) & 0xffff;
      this.tsOffset = (this.lastTs + elapsed - timestampOf(packet)) >>> 0;
      this.inputSsrc = ssrc;
    }
    if (this.seqOffset !== 0) writeSequence(packet, (sequenceOf(packet) + this.seqOffset) & 0xffff);
    if (this.tsOffset !== 0) writeTimestamp(packet, (timestampOf(packet) + this.tsOffset) >>> 0);
    if (ssrc !== this.ssrc) writeSsrc(packet, this.ssrc);
    this.lastSeq = sequenceOf(packet);
    this.lastTs = timestampOf(packet);
    this.lastArrival = arrivalMs;
  }
}
