// Receive statistics of one RTP stream (one direction of a call leg): loss per RFC 3550 A.1/A.3,
// interarrival jitter per A.8, and a MOS estimate from the ITU-T G.107 E-model, simplified.
// Also round-trip times from RTCP report blocks (RFC 3550 §6.4.1).

const SEQUENCE_MODULUS = 0x10000;
/** RFC 3550 A.1: a jump further ahead than this is a restart, not loss. */
const MAX_DROPOUT = 3000;
/** RFC 3550 A.1: packets up to this far behind the highest are late, not a restart. */
const MAX_MISORDER = 100;
/** Sequence numbers remembered behind the highest, to tell late packets from duplicates (> MAX_MISORDER). */
const RECENT_WINDOW = 128;

/** Delay a G.711 call has before the network: 20 ms packets. */
const PACKETISATION_MS = 20;

export type QualitySnapshot = {
  packets: number;
  lost: number;
  loss_pct: number;
  jitter_ms: number;
  mos: number | null;
  rtt_ms: number | null;
};

export class StreamQuality {
  private readonly clockRate: number;
  private started = false;
  private baseExtended = 0;
  private cycles = 0;
  private maxSeq = 0;
  /** The sequence number that would confirm a jump as a restart of the stream. */
  private restartCandidate = -1;
  private received = 0;
  private readonly recent = new Uint32Array(RECENT_WINDOW / 32);
  /** Counts of earlier runs of sequence numbers, before the stream restarted. */
  private expectedBefore = 0;
  private receivedBefore = 0;
  private jitterUnits = 0;
  private previousArrival: number | null = null;
  private previousTimestamp = 0;
  private rttMs: number | null = null;

  constructor(clockRate = 8000) {
    this.clockRate = clockRate;
  }

  onPacket(sequence: number, rtpTimestamp: number, arrivalMs: number): void {
    const seq = sequence & 0xffff;
    if (!this.started) {
      this.startRun(seq);
    } else {
      const ahead = (seq - this.maxSeq) & 0xffff;
      if (ahead === 0) return; // a duplicate of the highest
      if (ahead < MAX_DROPOUT) {
        this.advance(seq);
      } else if (ahead > SEQUENCE_MODULUS - MAX_MISORDER) {
        if (!this.acceptLate(seq, SEQUENCE_MODULUS - ahead)) return;
      } else if (seq === this.restartCandidate) {
        this.restart(seq);
      } else {
        // One packet far away could be stray; the next in sequence confirms a restart.
        this.restartCandidate = (seq + 1) & 0xffff;
        return;
      }
    }
    this.received++;
    this.updateJitter(rtpTimestamp, arrivalMs);
  }

  onRtcpRtt(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.rttMs = ms;
  }

  get packets(): number {
    return this.receivedBefore + this.received;
  }

  get expected(): number {
    if (!this.started) return this.expectedBefore;
    return this.expectedBefore + this.cycles + this.maxSeq - this.baseExtended + 1;
  }

  get lost(): number {
    return Math.max(0, this.expected - this.packets);
  }

  get lossPct(): number {
    const expected = this.expected;
    return expected > 0 ? (this.lost / expected) * 100 : 0;
  }

  get jitterMs(): number {
    return (this.jitterUnits / this.clockRate) * 1000;
  }

  get rtt(): number | null {
    return this.rttMs;
  }

  /** The estimated MOS of what was received, or null before any packet. */
  mos(codec?: string | null): number | null {
    if (this.packets === 0) return null;
    // A jitter buffer of twice the jitter, plus half the round trip when RTCP gave one.
    const delayMs = PACKETISATION_MS + 2 * this.jitterMs + (this.rttMs ?? 0) / 2;
    return eModelMos({ delayMs, lossPct: this.lossPct, codec });
  }

  snapshot(codec?: string | null): QualitySnapshot {
    return {
      packets: this.packets,
      lost: this.lost,
      loss_pct: round2(this.lossPct),
      jitter_ms: round2(this.jitterMs),
      mos: this.mos(codec),
      rtt_ms: this.rttMs === null ? null : round2(this.rttMs),
    };
  }

  private startRun(seq: number): void {
    this.started = true;
    this.baseExtended = seq;
    this.cycles = 0;
    this.maxSeq = seq;
    this.restartCandidate = -1;
    this.recent.fill(0);
    this.markSeen(seq);
  }

  /** The sender restarted its sequence (e.g. a new SSRC): keep what was counted, start a new run. */
  private restart(seq: number): void {
    this.expectedBefore = this.expected;
    this.receivedBefore += this.received;
    // The packet before this one started the jump; it counts too.
    const previous = (seq - 1) & 0xffff;
    this.startRun(previous);
    this.received = 1;
    this.advance(seq);
    this.previousArrival = null;
  }

  private advance(seq: number): void {
    if (seq < this.maxSeq) this.cycles += SEQUENCE_MODULUS;
    const ahead = (seq - this.maxSeq) & 0xffff;
    if (ahead >= RECENT_WINDOW) this.recent.fill(0);
    else for (let s = this.maxSeq + 1; s < this.maxSeq + ahead; s++) this.clearSeen(s);
    this.maxSeq = seq;
    this.restartCandidate = -1;
    this.markSeen(seq);
  }

  /** A packet behind the highest: counts once, and moves the base back if it precedes it. */
  private acceptLate(seq: number, behind: number): boolean {
    if (this.wasSeen(seq)) return false;
    this.markSeen(seq);
    this.baseExtended = Math.min(this.baseExtended, this.cycles + this.maxSeq - behind);
    return true;
  }

  private markSeen(seq: number): void {
    const slot = seq % RECENT_WINDOW;
    this.recent[slot >> 5]! |= 1 << (slot & 31);
  }

  private clearSeen(seq: number): void {
    const slot = seq % RECENT_WINDOW;
    this.recent[slot >> 5]! &= ~(1 << (slot & 31));
  }

  private wasSeen(seq: number): boolean {
    const slot = seq % RECENT_WINDOW;
    return (this.recent[slot >> 5]! & (1 << (slot & 31))) !== 0;
  }

  /** RFC 3550 A.8: J += (|D| - J) / 16, D the change in transit time, in timestamp units. */
  private updateJitter(rtpTimestamp: number, arrivalMs: number): void {
    const arrival = (arrivalMs * this.clockRate) / 1000;
    if (this.previousArrival !== null) {
      const timestampChange = (rtpTimestamp - this.previousTimestamp) | 0; // signed: timestamps wrap at 2^32
      const transitChange = arrival - this.previousArrival - timestampChange;
      this.jitterUnits += (Math.abs(transitChange) - this.jitterUnits) / 16;
    }
    this.previousArrival = arrival;
    this.previousTimestamp = rtpTimestamp;
  }
}

type CodecImpairment = { ie: number; bpl: number };

/** Equipment impairment Ie and packet-loss robustness Bpl (ITU-T G.113 Appendix I). */
const G711: CodecImpairment = { ie: 0, bpl: 25.1 }; // with packet loss concealment
const CODEC_IMPAIRMENTS: Record<string, CodecImpairment> = {
  PCMU: G711,
  PCMA: G711,
  G729: { ie: 11, bpl: 19 },
  G729A: { ie: 11, bpl: 19 },
  G723: { ie: 15, bpl: 16.1 },
};

/** The impairment of a codec named as in SDP ("PCMA", "G729/8000"); unknown codecs count as G.711. */
function codecImpairment(codec: string | null | undefined): CodecImpairment {
  const name = (codec ?? "").split("/")[0]!.toUpperCase();
  return CODEC_IMPAIRMENTS[name] ?? G711;
}

/** G.107 E-model with default values except delay, codec and random packet loss: MOS to 2 decimals. */
export function eModelMos(opts: { delayMs: number; lossPct: number; codec?: string | null }): number {
  const { ie, bpl } = codecImpairment(opts.codec);
  const d = opts.delayMs;
  const delayImpairment = 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0);
  const lossImpairment = ie + ((95 - ie) * opts.lossPct) / (opts.lossPct + bpl);
  const r = 93.2 - delayImpairment - lossImpairment;
  const mos = r <= 0 ? 1 : 1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r);
  return round2(Math.min(4.5, Math.max(1, mos)));
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

const RTCP_SR = 200;
const RTCP_RR = 201;
const NTP_UNIX_OFFSET_SECONDS = 2_208_988_800;

type ReportBlock = { ssrc: number; lastSr: number; delaySinceLastSr: number };

/** The middle 32 bits of the NTP time (16.16 fixed-point seconds) for a Unix time in ms. */
export function ntpMiddle32(unixMs: number): number {
  const seconds = Math.floor(unixMs / 1000);
  const fraction = Math.floor(((unixMs - seconds * 1000) / 1000) * 0x10000);
  return ((((seconds + NTP_UNIX_OFFSET_SECONDS) & 0xffff) << 16) | fraction) >>> 0;
}

/**
 * The round trip in ms from the first usable report block of an RTCP compound packet, taking
 * now as the receive time (RFC 3550 §6.4.1: A - LSR - DLSR). Meaningful only at the host that
 * sent the sender report, or one whose clock agrees with it; a relay should use RtcpRttTracker.
 */
export function parseRtcpRtt(packet: Uint8Array, nowNtpMiddle32 = ntpMiddle32(Date.now())): number | null {
  for (const block of rtcpReportBlocks(packet)) {
    if (block.lastSr === 0) continue;
    const units = (nowNtpMiddle32 - block.lastSr - block.delaySinceLastSr) | 0;
    if (units >= 0) return (units / 0x10000) * 1000;
  }
  return null;
}

const REMEMBERED_SENDER_REPORTS = 16;

/**
 * Round trips measured by a relay that sees RTCP in both directions: it notes when each sender
 * report passed, and when a receiver report answers it (LSR), the round trip between the relay
 * and that receiver is the time since, less the receiver's DLSR. No clocks need to agree.
 */
export class RtcpRttTracker {
  private readonly senderReports = new Map<number, number>();

  /** Feeds one RTCP compound packet; returns a round trip in ms when it completes one. */
  observe(packet: Uint8Array, arrivalMs: number): number | null {
    let rtt: number | null = null;
    for (const block of rtcpReportBlocks(packet)) {
      const sentAt = block.lastSr === 0 ? undefined : this.senderReports.get(block.lastSr);
      if (sentAt === undefined) continue;
      const ms = arrivalMs - sentAt - (block.delaySinceLastSr / 0x10000) * 1000;
      if (ms >= 0) rtt = ms;
    }
    const ntp = senderReportNtpMiddle32(packet);
    if (ntp !== null) this.remember(ntp, arrivalMs);
    return rtt;
  }

  private remember(ntp: number, arrivalMs: number): void {
    this.senderReports.set(ntp, arrivalMs);
    if (this.senderReports.size > REMEMBERED_SENDER_REPORTS) {
      this.senderReports.delete(this.senderReports.keys().next().value!);
    }
  }
}

/** Each RTCP packet of a compound packet: its type, report count and bytes; stops at anything malformed. */
function* rtcpPackets(compound: Uint8Array): Generator<{ type: number; count: number; body: Uint8Array }> {
  for (let offset = 0; offset + 4 <= compound.length;) {
    if (compound[offset]! >> 6 !== 2) return;
    const end = offset + (((compound[offset + 2]! << 8) | compound[offset + 3]!) + 1) * 4;
    if (end > compound.length) return;
    yield { type: compound[offset + 1]!, count: compound[offset]! & 0x1f, body: compound.subarray(offset, end) };
    offset = end;
  }
}

function* rtcpReportBlocks(compound: Uint8Array): Generator<ReportBlock> {
  for (const { type, count, body } of rtcpPackets(compound)) {
    const first = type === RTCP_SR ? 28 : type === RTCP_RR ? 8 : -1;
    if (first < 0) continue;
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    for (let i = 0, at = first; i < count && at + 24 <= body.length; i++, at += 24) {
      yield { ssrc: view.getUint32(at), lastSr: view.getUint32(at + 16), delaySinceLastSr: view.getUint32(at + 20) };
    }
  }
}

function senderReportNtpMiddle32(compound: Uint8Array): number | null {
  for (const { type, body } of rtcpPackets(compound)) {
    if (type === RTCP_SR && body.length >= 28) {
      return new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(10);
    }
  }
  return null;
}
