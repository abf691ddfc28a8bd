// The media of a web dialer call at the node: werift answers the browser's WebRTC offer (ICE-lite
// with one host candidate at the node's public address, DTLS-SRTP, Opus or G.711) and the leg
// speaks for the browser on one side of the call's MediaRelay. What the browser sends is
// decrypted, turned into G.711 RTP (Opus decoded, the RTP clock taken from 48 to 8 kHz, DTMF
// events rescaled) and handed to the relay as if it had come in on that side's socket, so the
// relay measures, records, captures and forwards it like any caller's RTP; what the relay sends
// to that side comes back here, is encoded for the browser and sent over SRTP.
//
// The B2BUA's use (b2bua/call-media.ts; docs/decisions/test-calls-and-dialer.md#the-webrtc-leg-at-the-sip-node):
//   const leg = await engine.openWebRtcLeg(relay, "caller", inviteSdp);   // after admission
//   offer to the destination: anchor("a", leg.relaySdpBytes)               // plain RTP, G.711
//   the destination's answer: anchor("b", body); leg.destinationAnswered(body)
//   answer to the browser (183/200): leg.answerSdp
//   the call's end: await leg.close() (the relay is closed as for every call)
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket, type RTCRtpTransceiver } from "werift";
import type { MediaRelay, Side } from "../media/relay.ts";
import { payloadEnd, payloadStart, payloadType, timestampOf, RTP_HEADER_BYTES } from "../media/rtp.ts";
import { firstCodec, parseSdpAudio } from "../media/sdp.ts";
import { guardIceSockets } from "./ice-guard.ts";
import { decodeLaw, encodeLaw, FrameQueue, OPUS_CLOCK_RATIO, OpusCodec, type BrowserCodec, type Law } from "./transcoder.ts";

export type WebRtcLegOptions = {
  /** The browser's SDP offer (from its INVITE). */
  offerSdp: string;
  /** Where the ICE socket binds: the node's RTP bind address. */
  bindAddress: string;
  /** The address of the node's one host candidate: its public address (behind 1:1 NAT, not the bind address). */
  publicAddress: string;
  /** The port the ICE socket binds (lent from the node's RTP range). */
  port: number;
  /** Answer G.711 when the browser offers it (no transcoding); by default Opus is preferred. */
  preferG711?: boolean;
  /** How long ICE gathering may take before the answer is given up (ms). */
  gatherTimeoutMs?: number;
  /** Called once when the leg closes (the lent port goes back to the range). */
  onClose?: () => void;
};

export class WebRtcError extends Error {}

/** The payload types the relay side (and so the destination) uses: G.711 and 8 kHz DTMF. */
const RELAY_PT: Record<Law, number> = { PCMU: 0, PCMA: 8 };
const RELAY_TELEPHONE_EVENT_PT = 101;
const TELEPHONE_EVENT = "telephone-event";

/** What the node offers a browser, in its order of preference (the browser's payload types are kept). */
function browserCodecs(preferG711: boolean): RTCRtpCodecParameters[] {
  const opus = new RTCRtpCodecParameters({ mimeType: "audio/opus", clockRate: 48_000, channels: 2, payloadType: 111 });
  const g711 = [
    new RTCRtpCodecParameters({ mimeType: "audio/PCMU", clockRate: 8000, payloadType: 0 }),
    new RTCRtpCodecParameters({ mimeType: "audio/PCMA", clockRate: 8000, payloadType: 8 }),
  ];
  const events = [
    new RTCRtpCodecParameters({ mimeType: `audio/${TELEPHONE_EVENT}`, clockRate: 48_000, payloadType: 110, parameters: "0-15" }),
    new RTCRtpCodecParameters({ mimeType: `audio/${TELEPHONE_EVENT}`, clockRate: 8000, payloadType: 126, parameters: "0-15" }),
  ];
  return [...(preferG711 ? [...g711, opus] : [opus, ...g711]), ...events];
}

/**
 * RTP timestamps from one clock to another (48 kHz and 8 kHz), step by step from the sender's
 * previous packet, so the sender's 32-bit counter wrapping is no jump.
 */
class ClockMap {
  private readonly factor: number;
  private lastIn: number | null = null;
  private lastOut: number;

  constructor(factor: number) {
    this.factor = factor;
    this.lastOut = (Math.random() * 2 ** 32) >>> 0;
  }

  map(timestamp: number): number {
    if (this.lastIn !== null) {
      const step = (timestamp - this.lastIn) | 0;
      this.lastOut = (this.lastOut + Math.round(step * this.factor)) >>> 0;
    }
    this.lastIn = timestamp;
    return this.lastOut;
  }
}

export class WebRtcLeg {
  /** The SDP answer for the browser (in the 183 or 200 to its INVITE). */
  readonly answerSdp: string;
  /** The browser's codec on its leg. */
  readonly browserCodec: BrowserCodec;
  /** Resolves when DTLS is up (media can flow), rejects when ICE or DTLS fails. */
  readonly connected: Promise<void>;
  private readonly pc: RTCPeerConnection;
  private readonly transceiver: RTCRtpTransceiver;
  private readonly browserVoicePt: number;
  /** The browser's telephone-event payload types and their clocks. */
  private readonly browserEvents: Map<number, number>;
  private readonly relayAddress: { address: string; port: number };
  private destinationLaw: Law = "PCMU";
  private relay: { relay: MediaRelay; side: Side } | null = null;
  private readonly decoder: OpusCodec | null;
  private readonly encoder: OpusCodec | null;
  private readonly toRelayClock: ClockMap;
  private readonly toBrowserClock: ClockMap;
  private readonly frames = new FrameQueue();
  private toBrowserSeq = (Math.random() * 0x10000) >>> 0;
  private closed = false;
  /** Packets the bridge could not use: from the browser an unknown payload type or a bad Opus frame, to it a failed encoding. */
  errors = 0;
  private guard: { dropped: () => number } | null = null;

  /** Datagrams refused at the ICE socket: not STUN, from an address that passed no ICE check. */
  get strangerPackets(): number {
    return this.guard?.dropped() ?? 0;
  }

  private readonly onClose: (() => void) | undefined;

  private constructor(
    pc: RTCPeerConnection,
    transceiver: RTCRtpTransceiver,
    answerSdp: string,
    port: number,
    publicAddress: string,
    onClose?: () => void,
  ) {
    this.pc = pc;
    this.onClose = onClose;
    this.transceiver = transceiver;
    this.answerSdp = answerSdp;
    this.relayAddress = { address: publicAddress, port };
    const media = parseSdpAudio(answerSdp);
    const codec = media ? firstCodec(media, answerSdp) : null;
    if (!media || (codec !== "OPUS" && codec !== "PCMU" && codec !== "PCMA")) {
      throw new WebRtcError(`the browser offered no codec the node takes (Opus, PCMU, PCMA)`);
    }
    this.browserCodec = codec === "OPUS" ? "opus" : codec;
    this.browserVoicePt = [...media.payloadTypes].find(([, f]) => f.encoding === codec)![0];
    this.browserEvents = new Map(
      [...media.payloadTypes].filter(([, f]) => f.encoding === TELEPHONE_EVENT).map(([pt, f]) => [pt, f.clockRate]),
    );
    const opus = this.browserCodec === "opus";
    this.decoder = opus ? new OpusCodec() : null;
    this.encoder = opus ? new OpusCodec() : null;
    this.toRelayClock = new ClockMap(opus ? 1 / OPUS_CLOCK_RATIO : 1);
    this.toBrowserClock = new ClockMap(opus ? OPUS_CLOCK_RATIO : 1);
    this.connected = new Promise((resolve, reject) => {
      pc.connectionStateChange.subscribe((state) => {
        if (state === "connected") resolve();
        if (state === "failed" || state === "closed") reject(new WebRtcError(`WebRTC connection ${state}`));
      });
    });
    this.connected.catch(() => {});
  }

  /** Answers the browser's offer: resolves once the answer (with its ICE candidate) is ready. */
  static async answer(options: WebRtcLegOptions): Promise<WebRtcLeg> {
    const family = options.bindAddress.includes(":") ? "udp6" : "udp4";
    const pc = new RTCPeerConnection({
      codecs: { audio: browserCodecs(options.preferG711 ?? false), video: [] },
      headerExtensions: { audio: [], video: [] },
      // ICE-lite (RFC 8445 §2.5), as servers with a public address do: one host candidate, the
      // node's public address, its socket bound at the RTP bind address on a port of the RTP
      // range; the browser checks and nominates. No interface enumeration, no TCP, and no STUN:
      // a full werift agent asks a STUN server for a reflexive candidate, Google's when none is
      // configured (a DNS query and a datagram to the internet for every call, and up to 5 s).
      iceLite: true,
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: [options.publicAddress],
      iceInterfaceAddresses: { [family]: options.bindAddress },
      // werift takes a range of two or more; the next port is the lent pair's other half, held
      // bound by the node, so the lent port is the one it binds.
      icePortRange: [options.port, options.port + 1],
      iceUseTcp: false,
      iceServers: [],
      bundlePolicy: "max-bundle",
    });
    let leg: WebRtcLeg | null = null;
    // Media comes only after DTLS, so after the browser has the answer and the leg exists.
    pc.onTrack.subscribe((track) => track.onReceiveRtp.subscribe((rtp) => leg?.fromBrowser(rtp)));
    try {
      await pc.setRemoteDescription({ type: "offer", sdp: options.offerSdp });
      const transceiver = pc.getTransceivers().find((t) => t.kind === "audio");
      if (!transceiver) throw new WebRtcError("the browser's offer has no audio stream");
      transceiver.setDirection("sendrecv");
      const gathered = gatheringComplete(pc, options.gatherTimeoutMs ?? 5_000);
      gathered.catch(() => {}); // awaited below; a timeout while the answer is made must not go unhandled
      await pc.setLocalDescription(await pc.createAnswer());
      await gathered;
      const guard = guardIceSockets(pc);
      leg = new WebRtcLeg(pc, transceiver, pc.localDescription!.sdp, options.port, options.publicAddress, options.onClose);
      leg.guard = guard;
      return leg;
    } catch (err) {
      await pc.close().catch(() => {});
      if (err instanceof WebRtcError) throw err;
      throw new WebRtcError(`the browser's offer could not be answered: ${String(err)}`);
    }
  }

  /**
   * The plain RTP SDP that stands for the browser on the relay's side: G.711 and 8 kHz DTMF,
   * what the destination is offered (through call.anchor, which points it at the relay).
   */
  get relaySdp(): string {
    const { address, port } = this.relayAddress;
    const family = address.includes(":") ? "IP6" : "IP4";
    const first: Law = this.browserCodec === "PCMA" ? "PCMA" : "PCMU";
    const laws: Law[] = first === "PCMA" ? ["PCMA", "PCMU"] : ["PCMU", "PCMA"];
    return [
      "v=0",
      `o=- ${Date.now()} 1 IN ${family} ${address}`,
      "s=call-shield",
      `c=IN ${family} ${address}`,
      "t=0 0",
      `m=audio ${port} RTP/AVP ${laws.map((law) => RELAY_PT[law]).join(" ")} ${RELAY_TELEPHONE_EVENT_PT}`,
      ...laws.map((law) => `a=rtpmap:${RELAY_PT[law]} ${law}/8000`),
      `a=rtpmap:${RELAY_TELEPHONE_EVENT_PT} ${TELEPHONE_EVENT}/8000`,
      `a=fmtp:${RELAY_TELEPHONE_EVENT_PT} 0-15`,
      "a=ptime:20",
      "a=sendrecv",
      "",
    ].join("\r\n");
  }

  get relaySdpBytes(): Uint8Array {
    return new TextEncoder().encode(this.relaySdp);
  }

  /** Speaks for the browser on `side` of the relay: its audio goes in there, the other side's comes back. */
  connect(relay: MediaRelay, side: Side = "caller"): void {
    this.relay = { relay, side };
    relay.speakAs(side, (packet) => this.toBrowser(packet));
  }

  /** The destination's SDP (its answer): the G.711 law it takes first is the one it gets. */
  destinationAnswered(sdp: Uint8Array | string): void {
    const text = typeof sdp === "string" ? sdp : new TextDecoder().decode(sdp);
    const media = parseSdpAudio(text);
    const codec = media ? firstCodec(media, text) : null;
    if (codec === "PCMU" || codec === "PCMA") this.destinationLaw = codec;
  }

  /** Ends the WebRTC leg: ICE and DTLS closed, the codecs freed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.relay = null;
    await this.pc.close().catch(() => {});
    this.decoder?.delete();
    this.encoder?.delete();
    this.onClose?.();
  }

  /** A decrypted packet from the browser, into the relay as G.711 (or a DTMF event at 8 kHz). */
  fromBrowser(rtp: RtpPacket): void {
    const target = this.relay;
    if (!target || this.closed) return;
    const { header } = rtp;
    const eventClock = this.browserEvents.get(header.payloadType);
    let payload: Uint8Array;
    let pt: number;
    if (eventClock !== undefined) {
      payload = rescaleEvent(rtp.payload, eventClock / 8000);
      pt = RELAY_TELEPHONE_EVENT_PT;
    } else if (header.payloadType === this.browserVoicePt) {
      payload = this.toDestinationLaw(rtp.payload);
      pt = RELAY_PT[this.destinationLaw];
    } else {
      this.errors++;
      return;
    }
    if (payload.length === 0) return;
    const packet = Buffer.allocUnsafe(RTP_HEADER_BYTES + payload.length);
    packet[0] = 0x80;
    packet[1] = (header.marker ? 0x80 : 0) | pt;
    packet.writeUInt16BE(header.sequenceNumber, 2);
    packet.writeUInt32BE(this.toRelayClock.map(header.timestamp), 4);
    packet.writeUInt32BE(header.ssrc >>> 0, 8);
    packet.set(payload, RTP_HEADER_BYTES);
    target.relay.send(target.side, packet);
  }

  private toDestinationLaw(payload: Buffer): Uint8Array {
    const law = this.destinationLaw;
    if (this.browserCodec === law) return payload;
    try {
      if (this.decoder) return encodeLaw(law, this.decoder.decode(payload));
    } catch {
      this.errors++;
      return new Uint8Array(0);
    }
    const pcm = new Int16Array(payload.length);
    decodeLaw(this.browserCodec as Law, payload, pcm);
    return encodeLaw(law, pcm);
  }

  /** A packet the relay sends towards the browser (the destination's G.711), out over SRTP. */
  private toBrowser(packet: Buffer): void {
    if (this.closed) return;
    const pt = payloadType(packet);
    const law: Law | null = pt === 0 ? "PCMU" : pt === 8 ? "PCMA" : null;
    // DTMF and comfort noise from the destination are not played by browsers: not sent.
    if (!law) return;
    const start = payloadStart(packet);
    if (start < 0) return;
    const payload = packet.subarray(start, payloadEnd(packet));
    const timestamp = timestampOf(packet);
    if (this.browserCodec === law) return this.sendToBrowser(Buffer.from(payload), this.toBrowserClock.map(timestamp));
    const pcm = new Int16Array(payload.length);
    decodeLaw(law, payload, pcm);
    if (!this.encoder) return this.sendToBrowser(encodeLaw(this.browserCodec as Law, pcm), this.toBrowserClock.map(timestamp));
    this.frames.push(pcm, timestamp, (frame, frameTimestamp) => {
      // This runs inside the relay's socket handler: a codec failure costs a frame, never the node.
      let encoded: Buffer;
      try {
        encoded = this.encoder!.encode(frame);
      } catch {
        this.errors++;
        return;
      }
      this.sendToBrowser(encoded, this.toBrowserClock.map(frameTimestamp));
    });
  }

  private sendToBrowser(payload: Buffer, timestamp: number): void {
    this.toBrowserSeq = (this.toBrowserSeq + 1) & 0xffff;
    // werift's sender sets the SSRC and the negotiated payload type, then encrypts.
    const header = new RtpHeader({ sequenceNumber: this.toBrowserSeq, timestamp, payloadType: this.browserVoicePt, marker: false });
    this.transceiver.sender.sendRtp(new RtpPacket(header, payload)).catch(() => {});
  }
}

/** A telephone-event payload with its duration (in RTP clock units) taken to the 8 kHz clock. */
function rescaleEvent(payload: Buffer, ratio: number): Uint8Array {
  if (payload.length < 4) return new Uint8Array(0);
  const out = Buffer.from(payload.subarray(0, 4));
  out.writeUInt16BE(Math.min(0xffff, Math.round(payload.readUInt16BE(2) / ratio)), 2);
  return out;
}

function gatheringComplete(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new WebRtcError("ICE gathering timed out")), timeoutMs);
    pc.iceGatheringStateChange.subscribe((state) => {
      if (state !== "complete") return;
      clearTimeout(timer);
      resolve();
    });
  });
}
