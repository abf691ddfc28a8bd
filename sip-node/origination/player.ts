// A test call's voice: µ-law audio sent as RTP, 20 ms (160 samples) a packet, paced by the clock
// (each packet leaves when its time is due, however late the timer fired, so the pace does not
// drift), in the law the far end chose: PCMU as it is, PCMA transcoded sample by sample.
import { randomInt } from "node:crypto";
import { encodeAlaw, ULAW_TO_PCM } from "../media/g711.ts";
import { RTP_HEADER_BYTES } from "../media/rtp.ts";

export type Law = "PCMU" | "PCMA";

const SAMPLES_PER_PACKET = 160;
const PACKET_MS = 20;
/** After a stall (a busy event loop), at most this many packets go at once; the rest of the backlog is skipped. */
const MAX_BURST = 5;

/** µ-law to A-law, through linear (a table, built once). */
const ULAW_TO_ALAW = Uint8Array.from(ULAW_TO_PCM, (linear) => encodeAlaw(linear));

export class RtpPlayer {
  private readonly audio: Uint8Array;
  private readonly payloadType: number;
  /** The law's silence, for the rest of a last packet the audio does not fill. */
  private readonly silence: number;
  private readonly send: (packet: Buffer) => void;
  private readonly ssrc = randomInt(2 ** 32);
  private sequence = randomInt(2 ** 16);
  private timestamp = randomInt(2 ** 32);
  private offset = 0;
  private startedAt = 0;
  private sent = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private finished!: () => void;
  /** Resolves when the whole audio has been sent, or the player was stopped. */
  readonly done = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(ulaw: Uint8Array, law: Law, payloadType: number, send: (packet: Buffer) => void) {
    this.audio = law === "PCMU" ? ulaw : Uint8Array.from(ulaw, (code) => ULAW_TO_ALAW[code]!);
    this.payloadType = payloadType;
    this.silence = law === "PCMU" ? 0xff : 0xd5;
    this.send = send;
  }

  /** How long the audio plays. */
  get durationMs(): number {
    return Math.ceil(this.audio.length / SAMPLES_PER_PACKET) * PACKET_MS;
  }

  start(): void {
    this.startedAt = Date.now();
    this.tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.finished();
  }

  private tick(): void {
    const due = Math.floor((Date.now() - this.startedAt) / PACKET_MS) + 1;
    // Packets a stall left behind beyond a short burst are skipped, their time passes silent.
    while (due - this.sent > MAX_BURST) this.skip();
    while (this.sent < due && this.offset < this.audio.length) this.sendNext();
    if (this.offset >= this.audio.length) return this.stop();
    this.timer = setTimeout(() => this.tick(), Math.max(0, this.startedAt + this.sent * PACKET_MS - Date.now()));
  }

  private sendNext(): void {
    const payload = this.audio.subarray(this.offset, this.offset + SAMPLES_PER_PACKET);
    const packet = Buffer.alloc(RTP_HEADER_BYTES + SAMPLES_PER_PACKET, this.silence);
    packet[0] = 0x80;
    // The marker bit on the first packet: the start of a talkspurt (RFC 3551 §4.1).
    packet[1] = (this.sent === 0 ? 0x80 : 0) | this.payloadType;
    packet.writeUInt16BE(this.sequence, 2);
    packet.writeUInt32BE(this.timestamp >>> 0, 4);
    packet.writeUInt32BE(this.ssrc, 8);
    packet.set(payload, RTP_HEADER_BYTES);
    this.send(packet);
    this.advance();
  }

  private skip(): void {
    this.advance();
  }

  private advance(): void {
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + SAMPLES_PER_PACKET) >>> 0;
    this.offset += SAMPLES_PER_PACKET;
    this.sent++;
  }
}
