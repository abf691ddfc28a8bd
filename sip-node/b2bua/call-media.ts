// The media of a B2BUA call: its relay, opened once the call is admitted, and for a web dialer
// call the WebRTC leg that speaks for the browser on the relay's caller side. Every SDP body on
// its way from one leg to the other passes here: the relay learns where that party wants its RTP
// and the body is rewritten to the relay's port facing the other party.
import type { MediaEngine } from "../media/engine.ts";
import type { MediaRelay, MediaSummary, Side } from "../media/relay.ts";
import { firstCodec, parseSdpAudio, rewriteSdp } from "../media/sdp.ts";
import type { WebRtcLeg } from "../webrtc/webrtc-leg.ts";
import type { Leg } from "./call-state.ts";

/** What a call's media needs of the node's media engine (openWebRtcLeg: absent where no dialer calls are carried). */
export type CallMediaEngine = Pick<MediaEngine, "open" | "watch" | "close"> & Partial<Pick<MediaEngine, "openWebRtcLeg">>;

const EMPTY = new Uint8Array(0);
const sideOf = (leg: Leg): Side => (leg === "a" ? "caller" : "callee");

export class CallMedia {
  private readonly engine: CallMediaEngine;
  private readonly warn: (message: string) => void;
  private relay: MediaRelay | null = null;
  private webrtc: WebRtcLeg | null = null;
  private offered: Uint8Array = EMPTY;

  constructor(engine: CallMediaEngine, warn: (message: string) => void) {
    this.engine = engine;
    this.warn = warn;
  }

  /** Opens the relay of admitted call `callId`; false when no ports could be had. */
  async open(callId: string, recorded: boolean): Promise<boolean> {
    this.relay = await this.engine.open(callId, { record: recorded, capture: recorded }).catch((err: unknown) => {
      this.warn(`no media: ${String(err)}`);
      return null;
    });
    return this.relay !== null;
  }

  /** A web dialer call: werift answers the browser's offer on the relay's caller side; false when it cannot (488). */
  async answerBrowser(offerSdp: string): Promise<boolean> {
    const open = this.engine.openWebRtcLeg;
    this.webrtc = open
      ? await open.call(this.engine, this.relay!, "caller", offerSdp).catch((err: unknown) => {
          this.warn(`webrtc: ${String(err)}`);
          return null;
        })
      : null;
    return this.webrtc !== null;
  }

  /** The caller is a browser on the web dialer, whose session is not renegotiated across the bridge. */
  get bridgesBrowser(): boolean {
    return this.webrtc !== null;
  }

  /** The offer the callee gets, anchored at the relay: the caller's own, or for a browser the WebRTC leg's plain RTP. */
  offerToCallee(callerOffer: Uint8Array): Uint8Array {
    this.offered = this.anchor("a", this.webrtc ? this.webrtc.relaySdpBytes : callerOffer);
    return this.offered;
  }

  /** The offer the callee got: a platform transfer offers it to the new callee, a browser call answers a re-INVITE with it. */
  get calleeOffer(): Uint8Array {
    return this.offered;
  }

  /** The Content-Type of that offer: the caller's, or SDP for a browser's. */
  offerType(callerType: string | null): string | null {
    return this.webrtc ? "application/sdp" : callerType;
  }

  /**
   * An SDP body from one leg, on its way to the other: tells the relay where that party wants its
   * RTP and rewrites the connection to the relay's port facing the other party.
   */
  anchor(from: Leg, body: Uint8Array): Uint8Array {
    if (body.length === 0 || !this.relay) return body;
    // The browser's WebRTC leg stands for it on the relay: the destination's SDP tells it the law, the browser keeps its answer.
    if (from === "b" && this.webrtc) {
      this.webrtc.destinationAnswered(body);
      this.anchorPlain(from, body);
      return new TextEncoder().encode(this.webrtc.answerSdp);
    }
    return this.anchorPlain(from, body);
  }

  private anchorPlain(from: Leg, body: Uint8Array): Uint8Array {
    const relay = this.relay!;
    const sdp = new TextDecoder().decode(body);
    const media = parseSdpAudio(sdp);
    if (!media) return body;
    relay.setRemote(sideOf(from), media, firstCodec(media, sdp));
    const towards: Side = from === "a" ? "callee" : "caller";
    return new TextEncoder().encode(rewriteSdp(sdp, relay.publicAddress, relay.localPort(towards)));
  }

  /** Ends the call (`onSilence`) when the media stops. */
  watch(onSilence: () => void): void {
    if (this.relay) this.engine.watch(this.relay, onSilence);
  }

  stats() {
    return this.relay?.stats() ?? null;
  }

  /** Closes the WebRTC leg and the relay: the relay's summary and files, or null when there was none. */
  async close(): Promise<MediaSummary | null> {
    const { relay, webrtc } = this;
    this.relay = null;
    this.webrtc = null;
    await webrtc?.close().catch((err: unknown) => this.warn(`webrtc: ${String(err)}`));
    if (!relay) return null;
    return this.engine.close(relay).catch((err: unknown) => {
      this.warn(`media: ${String(err)}`);
      return null;
    });
  }
}
