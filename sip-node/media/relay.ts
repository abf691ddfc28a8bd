// One call's media, anchored at the node: a port pair facing the caller and one facing the
// callee. Each RTP datagram is checked against the side's peer, measured (loss, jitter, DTMF),
// recorded and captured, its header rewritten in place when the sender changed, and sent on
// out of the other side. Nothing on this path allocates beyond the datagram Node hands us.
import type { RemoteInfo, Socket } from "node:dgram";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { LiveLegStats, MediaName } from "../../schema/node-api.ts";
import { DtmfDetector, type DtmfEvent } from "./dtmf.ts";
import { PcapWriter, type PcapEndpoint } from "./pcap.ts";
import type { PortAllocator, PortPair } from "./ports.ts";
import { RtcpRttTracker, StreamQuality } from "./quality.ts";
import { StereoRecorder } from "./recorder.ts";
import { isRtcp, isRtp, payloadStart, payloadEnd, payloadType, sequenceOf, ssrcOf, StreamContinuity, timestampOf } from "./rtp.ts";
import type { SdpMedia } from "./sdp.ts";

export type Side = "caller" | "callee";

/** How long after an offer, an answer or the call's answer a NATed party's packets may latch. */
export const LATCH_WINDOW_MS = 10_000;
type Law = "PCMU" | "PCMA";

export type RelayOptions = {
  callId: string;
  /** The address we put in SDP (where peers send their RTP). */
  publicAddress: string;
  /** Record a stereo WAV (processing full or record_only). */
  record: boolean;
  /** Write a pcap per leg. */
  capture: boolean;
  spoolDir: string;
  /** Where the spool file `name` of this call goes (the engine's signed names); `<spoolDir>/<call id>-<name>` if absent. */
  spoolPath?: (name: MediaName) => string;
  /** Whether RTP may be sent to an address an SDP names (no private ranges); all allowed if absent. */
  allowsPeer?: (address: string) => boolean;
};

export type MediaFile = { name: MediaName; path: string };

export type MediaSummary = {
  mos: number | null;
  jitter_ms: number | null;
  packet_loss_pct: number | null;
  qos: { caller: LiveLegStats; callee: LiveLegStats } | null;
  dtmf: DtmfEvent[];
  files: MediaFile[];
  media_ip: string;
};

/** One side of the relay: the sockets facing one party and what we learn from its packets. */
class RelaySide {
  readonly name: Side;
  readonly pair: PortPair;
  readonly local: PcapEndpoint;
  /** Where this party's RTP goes: the latched source, else what its SDP names. */
  remote: PcapEndpoint | null = null;
  /** The address and port the party's SDP names (only the address must match a latched source). */
  named: PcapEndpoint | null = null;
  remoteRtcpPort = 0;
  latched = false;
  /** Until when a packet from the SDP's address but another port may latch (NAT). */
  private latchUntil = 0;
  packets = 0;
  bytes = 0;
  errors = 0;
  lastPacketMs = 0;
  ssrc: number | null = null;
  readonly quality = new StreamQuality();
  dtmf: DtmfDetector | null = null;
  readonly continuity = new StreamContinuity();
  pcap: PcapWriter | null = null;
  direction: SdpMedia["direction"] = "sendrecv";
  /** The node itself is this party (a test call's player): nothing is sent out of this side. */
  nodeSpeaks = false;
  /** When the node speaks for a party it bridges (the WebRTC leg): what the relay sends this side goes here. */
  hears: ((packet: Buffer) => void) | null = null;

  constructor(name: Side, pair: PortPair, publicAddress: string) {
    this.name = name;
    this.pair = pair;
    this.local = { address: publicAddress, port: pair.port };
  }

  /**
   * Symmetric RTP, narrowed to the party the SDP names: a packet from the SDP's address latches
   * its source (the port may differ behind NAT) while the latch window is open, or at any time
   * when it comes from the very address and port named; once latched only that source is heard.
   * Anyone else (a stranger spraying the port range) is refused and moves nothing.
   */
  accepts(from: RemoteInfo): boolean {
    if (this.latched) return from.port === this.remote!.port && from.address === this.remote!.address;
    const named = this.named;
    if (!named || from.address !== named.address) return false;
    if (from.port !== named.port && Date.now() > this.latchUntil) return false;
    this.remote = { address: from.address, port: from.port };
    this.latched = true;
    return true;
  }

  /** What the party's SDP names: we send there until its packets latch the real source. */
  expect(named: PcapEndpoint | null, now: number): void {
    this.named = named;
    this.remote = named;
    this.latched = false;
    this.latchUntil = now + LATCH_WINDOW_MS;
  }

  /** Opens the latch window again (at the answer: a caller often starts its RTP only then). */
  reopenLatch(now: number): void {
    if (!this.latched) this.latchUntil = now + LATCH_WINDOW_MS;
  }

  stats(): LiveLegStats {
    const q = this.quality.snapshot();
    return {
      endpoint: this.remote ? `${this.remote.address}:${this.remote.port}` : null,
      packets: this.packets,
      bytes: this.bytes,
      errors: this.errors,
      last_packet: this.lastPacketMs ? new Date(this.lastPacketMs).toISOString() : null,
      ssrc: this.ssrc,
      lost: q.lost,
      loss_pct: q.loss_pct,
      jitter_ms: q.jitter_ms,
      rtt_ms: q.rtt_ms,
      mos: q.mos,
    };
  }
}

export class MediaRelay {
  readonly callId: string;
  readonly openedAt = Date.now();
  private readonly sides: Record<Side, RelaySide>;
  private readonly options: RelayOptions;
  private readonly ports: PortAllocator;
  private recorder: StereoRecorder | null = null;
  private readonly laws: Array<Law | undefined> = new Array(128);
  private telephoneEventPts = new Set<number>();
  /** Round trips from RTCP passing both ways: a receiver report answering a sender report we relayed. */
  private readonly rtt = new RtcpRttTracker();
  private firstPacketMs = 0;
  private codec: string | null = null;
  private closed = false;
  /** When the SDP last changed: silence is measured from here too (a fresh offer gets time to start). */
  private sdpChangedAt = Date.now();

  private constructor(ports: PortAllocator, caller: PortPair, callee: PortPair, options: RelayOptions) {
    this.ports = ports;
    this.options = options;
    this.callId = options.callId;
    this.sides = {
      caller: new RelaySide("caller", caller, options.publicAddress),
      callee: new RelaySide("callee", callee, options.publicAddress),
    };
    this.laws[0] = "PCMU";
    this.laws[8] = "PCMA";
    if (options.record) this.recorder = new StereoRecorder(this.spoolPath("recording.wav"));
    if (options.capture) {
      for (const side of Object.values(this.sides)) side.pcap = new PcapWriter(this.spoolPath(`${side.name}.pcap`));
    }
    this.listen(this.sides.caller, this.sides.callee);
    this.listen(this.sides.callee, this.sides.caller);
  }

  static async open(ports: PortAllocator, options: RelayOptions): Promise<MediaRelay> {
    const caller = await ports.allocate();
    const callee = await ports.allocate().catch((err: unknown) => {
      ports.release(caller);
      throw err;
    });
    return new MediaRelay(ports, caller, callee, options);
  }

  /** The port offered to a party: where it must send its RTP. */
  localPort(side: Side): number {
    return this.sides[side].pair.port;
  }

  get publicAddress(): string {
    return this.options.publicAddress;
  }

  /** A party's SDP: where its RTP goes, which payload types mean what, whether it holds. */
  setRemote(side: Side, media: SdpMedia, codec: string | null): void {
    const s = this.sides[side];
    const now = Date.now();
    // A side the node speaks for keeps its own address: its SDP only tells codecs and direction.
    if (media.address && media.port > 0 && !s.nodeSpeaks) {
      const address = normalAddress(media.address);
      // An address we may not send to (a private range, a host name) is as good as none:
      // nothing is sent there and nothing from it is heard.
      const named = this.options.allowsPeer?.(address) === false ? null : { address, port: media.port };
      const moved = s.named?.address !== named?.address || s.named?.port !== named?.port;
      if (moved) s.expect(named, now);
      else s.reopenLatch(now);
      s.remoteRtcpPort = media.port + 1;
    }
    s.direction = media.direction;
    for (const [pt, { encoding }] of media.payloadTypes) {
      const name = encoding.toUpperCase();
      if (name === "PCMU" || name === "PCMA") this.laws[pt] = name;
    }
    if (media.telephoneEventPt !== null) this.telephoneEventPts.add(media.telephoneEventPt);
    if (codec) this.codec = codec;
    this.sdpChangedAt = now;
  }

  /** A party put the call on hold (sendonly, recvonly or inactive): silence is expected. */
  get onHold(): boolean {
    return this.sides.caller.direction !== "sendrecv" || this.sides.callee.direction !== "sendrecv";
  }

  /** Restarts the silence clock (at the answer: ringing without early media is not silence). */
  touch(): void {
    this.sdpChangedAt = Date.now();
    for (const side of Object.values(this.sides)) side.reopenLatch(this.sdpChangedAt);
  }

  /** How long no RTP has come from either side (or since the last SDP change). */
  silentForMs(now = Date.now()): number {
    const last = Math.max(this.sides.caller.lastPacketMs, this.sides.callee.lastPacketMs, this.sdpChangedAt);
    return now - last;
  }

  stats(): { caller: LiveLegStats; callee: LiveLegStats } {
    return { caller: this.sides.caller.stats(), callee: this.sides.callee.stats() };
  }

  private listen(from: RelaySide, to: RelaySide): void {
    const channel = from.name === "caller" ? 0 : 1;
    from.pair.rtp.on("message", (packet, info) => this.relayRtp(packet, info, from, to, channel));
    from.pair.rtcp.on("message", (packet, info) => this.relayRtcp(packet, info, from, to));
  }

  private relayRtp(packet: Buffer, info: RemoteInfo, from: RelaySide, to: RelaySide, channel: 0 | 1): void {
    if (!isRtp(packet) || from.nodeSpeaks || !from.accepts(info)) {
      from.errors++;
      return;
    }
    const now = Date.now();
    if (isRtcp(packet)) return this.forwardRtcp(packet, now, from, to, to.pair.rtp, to.remote?.port);
    this.forwardRtp(packet, now, from, to, channel);
  }

  /**
   * From now on the node itself is `side` (a test call's player, see send): that side's port
   * hears nobody, and what the other party sends is measured and recorded but goes nowhere, or
   * to `hears` when given (the WebRTC bridge, sip-node/webrtc/, which speaks for a browser).
   */
  speakAs(side: Side, hears?: (packet: Buffer) => void): void {
    const s = this.sides[side];
    s.nodeSpeaks = true;
    // A bridged party (the browser of a WebRTC call) hears what the other side sends, synchronously.
    s.hears = hears ?? null;
    s.named = s.local;
    s.remote = s.local;
    s.latched = true;
  }

  /** One RTP packet the node sends as `side` (speakAs): measured, recorded and captured like a party's, then sent on. */
  send(side: Side, packet: Buffer): void {
    const other: Side = side === "caller" ? "callee" : "caller";
    this.forwardRtp(packet, Date.now(), this.sides[side], this.sides[other], side === "caller" ? 0 : 1);
  }

  private forwardRtp(packet: Buffer, now: number, from: RelaySide, to: RelaySide, channel: 0 | 1): void {
    if (this.firstPacketMs === 0) this.startClock(now);
    from.packets++;
    from.bytes += packet.length;
    from.lastPacketMs = now;
    const pt = payloadType(packet);
    const ts = timestampOf(packet);
    from.ssrc = ssrcOf(packet);
    from.quality.onPacket(sequenceOf(packet), ts, now);
    if (this.telephoneEventPts.has(pt) || this.recorder) {
      const start = payloadStart(packet);
      if (start < 0) from.errors++;
      else this.observePayload(packet.subarray(start, payloadEnd(packet)), pt, ts, now, from, channel);
    }
    from.pcap?.write(now, from.remote!, from.local, packet);
    if (to.nodeSpeaks) return to.hears?.(packet);
    if (!to.remote) return;
    to.continuity.apply(packet, now);
    to.pair.rtp.send(packet, to.remote.port, to.remote.address);
    to.pcap?.write(now, to.local, to.remote, packet);
  }

  private observePayload(payload: Uint8Array, pt: number, ts: number, now: number, from: RelaySide, channel: 0 | 1): void {
    if (this.telephoneEventPts.has(pt)) return from.dtmf!.onPacket(payload, ts, now);
    const law = this.laws[pt];
    if (law) this.recorder!.write(channel, law, payload, ts, from.ssrc!, now);
  }

  /** Time zero of the call's media: the recording's first sample and DTMF `t` count from here. */
  private startClock(now: number): void {
    this.firstPacketMs = now;
    this.sides.caller.dtmf = new DtmfDetector("caller", now);
    this.sides.callee.dtmf = new DtmfDetector("callee", now);
  }

  private relayRtcp(packet: Buffer, info: RemoteInfo, from: RelaySide, to: RelaySide): void {
    if (!from.remote || from.nodeSpeaks || info.address !== from.remote.address) {
      from.errors++;
      return;
    }
    this.forwardRtcp(packet, Date.now(), from, to, to.pair.rtcp, to.remoteRtcpPort);
  }

  /** RTCP goes on unchanged; a receiver report from `from` may complete a round trip of its leg. */
  private forwardRtcp(packet: Buffer, now: number, from: RelaySide, to: RelaySide, socket: Socket, port: number | undefined): void {
    const rtt = this.rtt.observe(packet, now);
    if (rtt !== null) from.quality.onRtcpRtt(rtt);
    if (to.remote && port && !to.nodeSpeaks) socket.send(packet, port, to.remote.address);
  }

  /** Releases the ports, closes the files and sums up the call's media. */
  async close(): Promise<MediaSummary> {
    if (this.closed) throw new Error("media relay already closed");
    this.closed = true;
    for (const side of Object.values(this.sides)) this.ports.release(side.pair);
    const files: MediaFile[] = [];
    if (this.recorder) {
      const wav = await this.recorder.finish().catch(() => null);
      await this.keepIf(files, "recording.wav", (wav?.seconds ?? 0) > 0);
    }
    for (const side of Object.values(this.sides)) {
      if (!side.pcap) continue;
      const capture = await side.pcap.close().catch(() => null);
      await this.keepIf(files, `${side.name}.pcap`, (capture?.packets ?? 0) > 0);
    }
    return this.summary(files);
  }

  /** A spooled file is handed over when it holds something; an empty or failed one is deleted. */
  private async keepIf(files: MediaFile[], name: MediaName, worthKeeping: boolean): Promise<void> {
    const path = this.spoolPath(name);
    if (worthKeeping) files.push({ name, path });
    else await rm(path, { force: true });
  }

  private summary(files: MediaFile[]): MediaSummary {
    const { caller, callee } = this.sides;
    const legs = [caller, callee].filter((s) => s.packets > 0);
    const worst = (pick: (s: RelaySide) => number | null, choose: (...v: number[]) => number) => {
      const values = legs.map(pick).filter((v): v is number => v !== null);
      return values.length ? choose(...values) : null;
    };
    const dtmf = [...(caller.dtmf?.events() ?? []), ...(callee.dtmf?.events() ?? [])].sort((x, y) => x.t - y.t);
    return {
      mos: worst((s) => s.quality.mos(this.codec), Math.min),
      jitter_ms: worst((s) => s.quality.jitterMs, Math.max),
      packet_loss_pct: worst((s) => s.quality.lossPct, Math.max),
      qos: legs.length ? { caller: caller.stats(), callee: callee.stats() } : null,
      dtmf,
      files,
      media_ip: this.options.publicAddress,
    };
  }

  private spoolPath(name: MediaName): string {
    return this.options.spoolPath?.(name) ?? join(this.options.spoolDir, `${this.callId}-${name}`);
  }
}

/** An SDP address as the socket reports sources: IPv6 compressed and in lower case (RFC 5952). */
function normalAddress(address: string): string {
  if (!address.includes(":")) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}
