// A browser's WebRTC audio, played in Node with werift (no browser needed): it offers what Chrome
// offers for a call (Opus, PCMU, PCMA, telephone-event at 48 and 8 kHz) with one host candidate
// on loopback, sends 20 ms frames of audio it is given (Opus encoded by libopus, as a browser
// does) and RFC 4733 digits, and decodes what it hears. Used by the WebRTC bridge's test and
// bench/media's dialer row.
import type { Socket } from "node:dgram";
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket, type RTCRtpTransceiver } from "werift";
import { ALAW_TO_PCM, encodeAlaw, encodeUlaw, ULAW_TO_PCM } from "../../sip-node/media/g711.ts";
import { OpusCodec } from "../../sip-node/webrtc/transcoder.ts";

export type BrowserCodecChoice = "opus" | "PCMU" | "PCMA";
const FRAME = 160;

function offeredCodecs(only?: BrowserCodecChoice): RTCRtpCodecParameters[] {
  const all = [
    new RTCRtpCodecParameters({
      mimeType: "audio/opus",
      clockRate: 48_000,
      channels: 2,
      payloadType: 111,
      parameters: "minptime=10;useinbandfec=1",
    }),
    new RTCRtpCodecParameters({ mimeType: "audio/PCMU", clockRate: 8000, payloadType: 0 }),
    new RTCRtpCodecParameters({ mimeType: "audio/PCMA", clockRate: 8000, payloadType: 8 }),
    new RTCRtpCodecParameters({ mimeType: "audio/telephone-event", clockRate: 48_000, payloadType: 110, parameters: "0-15" }),
    new RTCRtpCodecParameters({ mimeType: "audio/telephone-event", clockRate: 8000, payloadType: 126, parameters: "0-15" }),
  ];
  const name = { opus: "audio/opus", PCMU: "audio/PCMU", PCMA: "audio/PCMA" };
  return only ? all.filter((c) => c.mimeType === name[only] || c.mimeType === "audio/telephone-event") : all;
}

export class NodeBrowser {
  readonly pc: RTCPeerConnection;
  readonly transceiver: RTCRtpTransceiver;
  offerSdp = "";
  /** What the browser heard, decoded to 8 kHz, in arrival order. */
  readonly heard: Int16Array[] = [];
  /** Packets heard after decryption (payload type, sequence number, payload). */
  readonly decrypted: Array<{ pt: number; seq: number; payload: Buffer }> = [];
  /** Packets sent before encryption, by sequence number (with keepWire). */
  readonly sentClear = new Map<number, Buffer>();
  /** Datagrams as they crossed the browser's socket: in (from the node) and out (to it). */
  readonly wire: { in: Buffer[]; out: Buffer[] } = { in: [], out: [] };
  private codec: BrowserCodecChoice = "opus";
  // libopus as the node drives it (opusscript's own wrapper breaks past a few dozen codecs).
  private readonly encoder = new OpusCodec();
  private readonly decoder = new OpusCodec();
  private seq = 1000;
  private timestamp = 123_456;
  private readonly keepWire: boolean;

  /** Instead of decoding what it hears (a benchmark's browser only counts it). */
  private readonly onRtp: ((rtp: RtpPacket) => void) | undefined;

  private constructor(only: BrowserCodecChoice | undefined, keepWire: boolean, onRtp?: (rtp: RtpPacket) => void) {
    this.keepWire = keepWire;
    this.onRtp = onRtp;
    this.pc = new RTCPeerConnection({
      codecs: { audio: offeredCodecs(only), video: [] },
      headerExtensions: { audio: [], video: [] },
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: ["127.0.0.1"],
      iceInterfaceAddresses: { udp4: "127.0.0.1" },
      // A full werift agent asks a STUN server for a reflexive candidate, Google's unless told
      // otherwise: a closed port on loopback instead, given up on at once.
      iceServers: [{ urls: "stun:127.0.0.1:9" }],
      iceStunGatherTimeout: 0.05,
    });
    this.transceiver = this.pc.addTransceiver("audio", { direction: "sendrecv" });
    this.pc.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        if (this.onRtp) return this.onRtp(rtp);
        if (this.keepWire) this.decrypted.push({ pt: rtp.header.payloadType, seq: rtp.header.sequenceNumber, payload: rtp.payload });
        this.heard.push(this.decode(rtp.header.payloadType, rtp.payload));
      }),
    );
  }

  /** A browser with its offer made (ICE gathered); `only` offers one voice codec instead of all. */
  static async offer(
    options: { only?: BrowserCodecChoice; keepWire?: boolean; onRtp?: (rtp: RtpPacket) => void } = {},
  ): Promise<NodeBrowser> {
    const browser = new NodeBrowser(options.only, options.keepWire ?? false, options.onRtp);
    const gathered = new Promise<void>((resolve) =>
      browser.pc.iceGatheringStateChange.subscribe((state) => state === "complete" && resolve()),
    );
    await browser.pc.setLocalDescription(await browser.pc.createOffer());
    await gathered;
    browser.offerSdp = browser.pc.localDescription!.sdp;
    return browser;
  }

  /** Takes the node's answer; resolves once DTLS is up. */
  async accept(answerSdp: string): Promise<void> {
    const connected = new Promise<void>((resolve, reject) =>
      this.pc.connectionStateChange.subscribe((state) => {
        if (state === "connected") resolve();
        if (state === "failed") reject(new Error("browser: WebRTC connection failed"));
      }),
    );
    await this.pc.setRemoteDescription({ type: "answer", sdp: answerSdp });
    const codec = this.transceiver.sender.codec?.mimeType.toLowerCase();
    this.codec = codec === "audio/pcmu" ? "PCMU" : codec === "audio/pcma" ? "PCMA" : "opus";
    await connected;
    if (this.keepWire) this.tapSocket();
  }

  get negotiated(): BrowserCodecChoice {
    return this.codec;
  }

  /** One 20 ms frame of 8 kHz audio, encoded as the negotiated codec and sent over SRTP. */
  sendFrame(samples: Int16Array): void {
    const payload =
      this.codec === "opus"
        ? this.encoder.encode(samples)
        : Buffer.from(samples.map((s) => (this.codec === "PCMU" ? encodeUlaw(s) : encodeAlaw(s))));
    this.send(payload, this.timestamp, false);
    this.timestamp = (this.timestamp + (this.codec === "opus" ? 960 : FRAME)) >>> 0;
  }

  /** One 20 ms frame already encoded as the negotiated codec (a benchmark's browser encodes its tone once). */
  sendEncoded(payload: Buffer, timestamp: number, sequenceNumber: number): void {
    const header = new RtpHeader({ sequenceNumber, timestamp, payloadType: 0 });
    void this.transceiver.sender.sendRtp(new RtpPacket(header, payload));
  }

  /** One Opus frame of 20 ms of 8 kHz audio, as this browser's encoder makes it. */
  encodeOpus(samples: Int16Array): Buffer {
    return this.encoder.encode(samples);
  }

  /**
   * A DTMF digit as Chrome sends it (RFC 4733, the telephone-event of the voice codec's clock):
   * `packets` updates 20 ms apart, then the end three times. werift's sender stamps every packet
   * with the voice codec's payload type, so the event's codec stands in for it meanwhile.
   */
  sendDigit(digit: number, packets = 5): void {
    const sender = this.transceiver.sender;
    const voice = sender.codec!;
    const clock = this.codec === "opus" ? 48_000 : 8000;
    const event = this.transceiver.codecs.find((c) => c.mimeType.toLowerCase() === "audio/telephone-event" && c.clockRate === clock);
    if (!event) throw new Error("no telephone-event negotiated");
    const start = this.timestamp;
    const step = clock / 50;
    sender.codec = event;
    try {
      for (let i = 1; i <= packets + 3; i++) {
        const ended = i > packets;
        const payload = Buffer.from([digit, ended ? 0x80 | 10 : 10, 0, 0]);
        payload.writeUInt16BE(Math.min(i, packets) * step, 2);
        this.send(payload, start, i === 1);
      }
    } finally {
      sender.codec = voice;
    }
    this.timestamp = (this.timestamp + packets * step) >>> 0;
  }

  async close(): Promise<void> {
    await this.pc.close();
    this.encoder.delete();
    this.decoder.delete();
  }

  private send(payload: Buffer, timestamp: number, marker: boolean): void {
    this.seq = (this.seq + 1) & 0xffff;
    if (this.keepWire) this.sentClear.set(this.seq, payload);
    const header = new RtpHeader({ sequenceNumber: this.seq, timestamp, marker, payloadType: 0 });
    void this.transceiver.sender.sendRtp(new RtpPacket(header, payload));
  }

  private decode(pt: number, payload: Buffer): Int16Array {
    if (pt === 0) return Int16Array.from(payload, (b) => ULAW_TO_PCM[b]!);
    if (pt === 8) return Int16Array.from(payload, (b) => ALAW_TO_PCM[b]!);
    return this.decoder.decode(payload);
  }

  /** Keeps every datagram the browser's ICE socket receives and sends, as they are on the wire. */
  private tapSocket(): void {
    const connection = this.transceiver.dtlsTransport!.iceTransport.connection as unknown as {
      protocols: Array<{ transport?: { socket: Socket } }>;
    };
    for (const protocol of connection.protocols) {
      const socket = protocol.transport?.socket;
      if (!socket) continue;
      socket.on("message", (data: Buffer) => this.wire.in.push(Buffer.from(data)));
      const send = socket.send.bind(socket) as (...args: unknown[]) => void;
      socket.send = ((data: Buffer, ...rest: unknown[]) => {
        this.wire.out.push(Buffer.from(data));
        send(data, ...rest);
      }) as typeof socket.send;
    }
  }
}
