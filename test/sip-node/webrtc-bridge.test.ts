// The web dialer's media at the node: a browser played by werift in Node offers WebRTC audio,
// the node's bridge answers it and speaks for it on the caller side of a call's MediaRelay, and
// a plain RTP peer stands for the destination on the callee side. Audio, DTMF and the recording
// go through the same relay as every call; SRTP only on the browser's side, plain RTP only on
// the destination's.
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseWav } from "../../schema/wav.ts";
import type { WorkerClient } from "../../sip-node/control/worker-client.ts";
import { MediaEngine } from "../../sip-node/media/engine.ts";
import { ULAW_TO_PCM, encodeUlaw } from "../../sip-node/media/g711.ts";
import type { MediaRelay } from "../../sip-node/media/relay.ts";
import { isRtp, payloadType, sequenceOf } from "../../sip-node/media/rtp.ts";
import { parseSdpAudio } from "../../sip-node/media/sdp.ts";
import { FrameQueue, OpusCodec } from "../../sip-node/webrtc/transcoder.ts";
import { WebRtcError, type WebRtcLeg } from "../../sip-node/webrtc/webrtc-leg.ts";
import { pause, until } from "./wait.ts";
import { NodeBrowser, type BrowserCodecChoice } from "./webrtc-browser.ts";

const FRAME = 160;
const base = 42_000 + (process.pid % 50) * 50;
const engineOptions = {
  portMin: base,
  portMax: base + 29,
  bind: "127.0.0.1",
  timeoutMs: 60_000,
  holdTimeoutMs: 60_000,
  spoolDir: mkdtempSync(join(tmpdir(), "webrtc-bridge-")),
  publicAddress: "127.0.0.1",
};
const engine = new MediaEngine(engineOptions, {} as WorkerClient, () => {});
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A sweep from 300 Hz to 3 kHz and back with a slow swell: no two stretches alike, so one lag aligns it. */
function sweep(seconds: number, seed: number): Int16Array {
  const n = seconds * 8000;
  const out = new Int16Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / 8000;
    const f = 300 + 2700 * Math.abs(Math.sin((Math.PI * t) / seconds + seed));
    phase += (2 * Math.PI * f) / 8000;
    out[i] = Math.round(9000 * (0.6 + 0.4 * Math.sin(2 * Math.PI * 1.3 * t + seed)) * Math.sin(phase));
  }
  return out;
}

/** The best normalised cross-correlation of `heard` against `sent` over lags 0..maxLag. */
function bestCorrelation(sent: Int16Array, heard: Int16Array, maxLag = 4000): number {
  const from = 1600; // past the codecs' start-up
  const length = Math.min(sent.length - from, heard.length - from - maxLag, 6000);
  if (length < 1600) return 0;
  let best = 0;
  for (let lag = -from + 1; lag <= maxLag; lag += 1) {
    let xy = 0;
    let xx = 0;
    let yy = 0;
    for (let i = from; i < from + length; i++) {
      const x = sent[i]!;
      const y = heard[i + lag] ?? 0;
      xy += x * y;
      xx += x * x;
      yy += y * y;
    }
    if (xx > 0 && yy > 0) best = Math.max(best, xy / Math.sqrt(xx * yy));
  }
  return best;
}

const concat = (chunks: Int16Array[]) => {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
};

type Destination = { socket: Socket; port: number; received: Buffer[] };

async function destination(): Promise<Destination> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const received: Buffer[] = [];
  socket.on("message", (m) => received.push(m));
  cleanups.push(() => socket.close());
  return { socket, port: socket.address().port, received };
}

/** A dialer call's media as the B2BUA sets it up: relay, WebRTC leg, destination's SDP, browser's answer. */
async function dialerCall(only?: BrowserCodecChoice, destinationLaw: "PCMU" | "PCMA" = "PCMU") {
  const relay = await engine.open(`webrtc-${Math.random().toString(36).slice(2)}`, { record: true, capture: true });
  let closed = false;
  const closeRelay = async () => {
    if (closed) return null;
    closed = true;
    return engine.close(relay);
  };
  cleanups.push(closeRelay);
  const browser = await NodeBrowser.offer({ keepWire: true, ...(only ? { only } : {}) });
  cleanups.push(() => browser.close());
  const leg = await engine.openWebRtcLeg(relay, "caller", browser.offerSdp);
  cleanups.push(() => leg.close());
  // What the B2BUA does with the leg's plain SDP (call.anchor("a", ...)) and the destination's answer (call.anchor("b", ...)).
  const offer = parseSdpAudio(leg.relaySdp)!;
  relay.setRemote("caller", offer, "PCMU");
  const peer = await destination();
  const pt = destinationLaw === "PCMU" ? 0 : 8;
  const answer = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${peer.port} RTP/AVP ${pt} 101\r\na=rtpmap:${pt} ${destinationLaw}/8000\r\na=rtpmap:101 telephone-event/8000\r\n`;
  relay.setRemote("callee", parseSdpAudio(answer)!, destinationLaw);
  leg.destinationAnswered(answer);
  await browser.accept(leg.answerSdp);
  await leg.connected;
  return { relay, browser, leg, peer, closeRelay };
}

/** Plays both signals at 20 ms a frame: the browser's towards the destination and the destination's (PCMU) back. */
async function talk(call: { relay: MediaRelay; browser: NodeBrowser; peer: Destination }, fromBrowser: Int16Array, fromPeer: Int16Array) {
  const target = call.relay.localPort("callee");
  const frames = Math.min(fromBrowser.length, fromPeer.length) / FRAME;
  for (let n = 0; n < frames; n++) {
    call.browser.sendFrame(fromBrowser.subarray(n * FRAME, (n + 1) * FRAME));
    const packet = Buffer.alloc(12 + FRAME);
    packet[0] = 0x80;
    packet.writeUInt16BE(n, 2);
    packet.writeUInt32BE(n * FRAME, 4);
    packet.writeUInt32BE(0xdec0de, 8);
    for (let i = 0; i < FRAME; i++) packet[12 + i] = encodeUlaw(fromPeer[n * FRAME + i]!);
    call.peer.socket.send(packet, target, "127.0.0.1");
    await pause(20); // deliberate: a frame every 20 ms, as both parties send them
  }
  // The last frames in flight: until every frame has crossed each way (or 5 s, for the assertions to judge what did).
  await until(
    "every frame through both ways",
    () => call.peer.received.filter((p) => payloadType(p) === 0).length >= frames && call.browser.heard.length >= frames,
    5_000,
  ).catch(() => {});
}

/** The G.711 audio the destination received, in sequence order. */
function destinationHeard(received: Buffer[]): Int16Array {
  const voice = received.filter((p) => payloadType(p) === 0).sort((a, b) => sequenceOf(a) - sequenceOf(b));
  return concat(voice.map((p) => Int16Array.from(p.subarray(12), (b) => ULAW_TO_PCM[b]!)));
}

function channel(samples: Int16Array, which: 0 | 1): Int16Array {
  return samples.filter((_, i) => i % 2 === which);
}

describe("the bridge's framing towards Opus", () => {
  it("cuts a destination's 30 ms packets into 20 ms frames with their own timestamps, and starts afresh after a gap", () => {
    const queue = new FrameQueue();
    const frames: Array<[number, number]> = [];
    const onFrame = (frame: Int16Array, timestamp: number) => frames.push([timestamp, frame[0]!]);
    const packet = (first: number) => Int16Array.from({ length: 240 }, (_, i) => first + i);
    queue.push(packet(0), 4_294_967_056, onFrame); // 240 before the 32-bit wrap
    queue.push(packet(240), 0, onFrame);
    queue.push(packet(480), 240, onFrame);
    expect(frames).toEqual([
      [4_294_967_056, 0],
      [4_294_967_216, 160],
      [80, 320],
      [240, 480],
    ]);
    // 40 ms lost: the half frame left is dropped and framing starts at the next packet.
    queue.push(packet(1040), 800, onFrame);
    expect(frames.at(-1)).toEqual([800, 1040]);
  });
});

describe("the bridge's Opus codecs", () => {
  it("stay right with many at once (opusscript's own wrapper broke past a few dozen: lost views, others' memory overwritten)", () => {
    // 75 calls' worth: an encoder and a decoder each, every one busy in turn, frame by frame.
    const pairs = Array.from({ length: 75 }, (_, i) => ({
      encoder: new OpusCodec(),
      decoder: new OpusCodec(),
      signal: sweep(0.5, i / 10),
    }));
    try {
      const heard = pairs.map(() => [] as Int16Array[]);
      for (let n = 0; n < 4000 / FRAME; n++) {
        pairs.forEach(({ encoder, decoder, signal }, i) => {
          heard[i]!.push(decoder.decode(encoder.encode(signal.subarray(n * FRAME, (n + 1) * FRAME))));
        });
      }
      for (const i of [0, 37, 74]) expect(bestCorrelation(pairs[i]!.signal, concat(heard[i]!), 200)).toBeGreaterThan(0.9);
      expect(heard.every((frames) => frames.every((frame) => frame.length === FRAME))).toBe(true);
    } finally {
      for (const { encoder, decoder } of pairs) {
        encoder.delete();
        decoder.delete();
      }
    }
  });
});

describe("the WebRTC bridge", () => {
  it("bridges Opus over DTLS-SRTP to G.711 RTP both ways, records the browser on the caller channel and carries its DTMF", async () => {
    const call = await dialerCall();
    expect(call.leg.browserCodec).toBe("opus");
    expect(call.browser.negotiated).toBe("opus");
    expect(call.leg.answerSdp).toMatch(/a=fingerprint:sha-256 /);
    expect(call.leg.answerSdp).toMatch(/a=candidate:\S+ 1 udp \d+ 127\.0\.0\.1 \d+ typ host/);

    const spoken = sweep(2, 0);
    const answered = sweep(2, 1.1);
    await talk(call, spoken, answered);
    call.browser.sendDigit(5);
    await until(
      "the digit's 8 packets at the destination",
      () => call.peer.received.filter((p) => payloadType(p) === 101).length >= 8,
      5_000,
    );

    // Browser to destination: plain G.711 RTP (172-byte packets, no SRTP tag) whose audio is the browser's.
    const voice = call.peer.received.filter((p) => payloadType(p) === 0);
    expect(voice.length).toBeGreaterThan(80);
    expect(call.peer.received.every((p) => isRtp(p) && [0, 101].includes(payloadType(p)))).toBe(true);
    expect(voice.every((p) => p.length === 12 + FRAME)).toBe(true);
    expect(bestCorrelation(spoken, destinationHeard(call.peer.received))).toBeGreaterThan(0.8);
    // The digit, with its duration on the 8 kHz clock (5 updates of 20 ms: 800 units), ended three times.
    const events = call.peer.received.filter((p) => payloadType(p) === 101);
    expect(events.length).toBe(8);
    expect(events.map((p) => p[12])).toEqual(new Array(8).fill(5));
    expect(events.at(-1)!.readUInt16BE(14)).toBe(800);

    // Destination to browser: Opus, decrypted by the browser, whose audio is the destination's.
    expect(bestCorrelation(answered, concat(call.browser.heard))).toBeGreaterThan(0.8);
    // On the browser's wire: SRTP only. Each datagram that carries RTP is longer than its
    // decrypted packet (the authentication tag) and its payload bytes are not the clear ones.
    const clear = new Map(call.browser.decrypted.map((p) => [p.seq, p.payload]));
    const incoming = call.browser.wire.in.filter((d) => isRtp(d) && d[1]! < 200 && clear.has(sequenceOf(d)));
    expect(incoming.length).toBeGreaterThan(50);
    for (const datagram of incoming) {
      const payload = clear.get(sequenceOf(datagram))!;
      expect(datagram.length).toBeGreaterThanOrEqual(12 + payload.length + 10);
      expect(datagram.subarray(12, 12 + payload.length).equals(payload)).toBe(false);
    }
    // What the browser sent is not plain RTP either: no datagram out carries an Opus frame it encoded in the clear.
    const out = call.browser.wire.out.filter((d) => isRtp(d) && d[1]! < 200 && call.browser.sentClear.has(sequenceOf(d)));
    expect(out.length).toBeGreaterThan(80);
    for (const datagram of out) {
      const payload = call.browser.sentClear.get(sequenceOf(datagram))!;
      expect(datagram.length).toBeGreaterThanOrEqual(12 + payload.length + 10);
      expect(datagram.subarray(12, 12 + payload.length).equals(payload)).toBe(false);
    }

    // The recording: the browser's audio on the caller (left) channel, the destination's on the right; the digit as for SIP calls.
    const summary = (await call.closeRelay())!;
    const wav = summary.files.find((f) => f.name === "recording.wav")!;
    const recording = parseWav(new Uint8Array(readFileSync(wav.path)));
    expect(recording.channels).toBe(2);
    expect(bestCorrelation(spoken, channel(recording.samples, 0))).toBeGreaterThan(0.8);
    expect(bestCorrelation(answered, channel(recording.samples, 1))).toBeGreaterThan(0.8);
    expect(summary.dtmf).toEqual([expect.objectContaining({ digit: "5", channel: "caller", source: "rfc4733", ms: 100 })]);
    // The browser's leg measured like any caller's: every packet, none lost.
    expect(summary.qos!.caller.packets).toBeGreaterThan(80);
    expect(summary.qos!.caller.lost).toBe(0);
  });

  it("ignores a stranger's datagrams at the ICE port (a spoofed DTLS alert does not cut the browser's audio)", async () => {
    const call = await dialerCall();
    const port = Number(/ (\d+) typ host/.exec(call.leg.answerSdp)![1]);
    const stranger = await destination();
    // A DTLS 1.2 close_notify alert in plain text (epoch 0 and 1), and a fake RTP packet.
    for (const epoch of [0, 1])
      stranger.socket.send(Buffer.from([21, 0xfe, 0xfd, 0, epoch, 0, 0, 0, 0, 0, 9, 0, 2, 1, 0]), port, "127.0.0.1");
    stranger.socket.send(Buffer.alloc(172, 0x80), port, "127.0.0.1");
    await until("the stranger's datagrams seen", () => call.leg.strangerPackets >= 3, 5_000).catch(() => {});
    expect(call.leg.strangerPackets).toBe(3);
    const answered = sweep(1, 1.7);
    await talk(call, sweep(1, 0.2), answered);
    expect(bestCorrelation(answered, concat(call.browser.heard))).toBeGreaterThan(0.8);
  });

  it("takes a browser offering only PCMA to a destination answering PCMU (no Opus, the law converted)", async () => {
    const call = await dialerCall("PCMA", "PCMU");
    expect(call.leg.browserCodec).toBe("PCMA");
    expect(call.leg.relaySdp).toMatch(/m=audio \d+ RTP\/AVP 8 0 101/);
    const spoken = sweep(1, 0.4);
    const answered = sweep(1, 2.1);
    await talk(call, spoken, answered);
    expect(bestCorrelation(spoken, destinationHeard(call.peer.received))).toBeGreaterThan(0.9);
    expect(bestCorrelation(answered, concat(call.browser.heard))).toBeGreaterThan(0.9);
    expect(call.browser.decrypted.every((p) => p.pt === 8)).toBe(true);
  });

  it("refuses an offer without audio, and gives the lent port back", async () => {
    const relay = await engine.open("webrtc-no-audio", { record: false, capture: false });
    cleanups.push(() => engine.close(relay));
    const used = engine.ports.used;
    const noAudio = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";
    await expect(engine.openWebRtcLeg(relay, "caller", noAudio)).rejects.toBeInstanceOf(WebRtcError);
    expect(engine.ports.used).toBe(used);
  });

  it("advertises one host candidate, at WEBRTC_PUBLIC_ADDRESS when set, on a port of the RTP range", async () => {
    const behindNat = new MediaEngine(
      { ...engineOptions, portMin: base + 40, portMax: base + 49, webrtcPublicAddress: "192.0.2.10" },
      {} as WorkerClient,
      () => {},
    );
    cleanups.push(() => behindNat.stop());
    const relay = await behindNat.open("webrtc-nat", { record: false, capture: false });
    cleanups.push(() => behindNat.close(relay));
    const browser = await NodeBrowser.offer();
    cleanups.push(() => browser.close());
    const leg = await behindNat.openWebRtcLeg(relay, "caller", browser.offerSdp);
    cleanups.push(() => leg.close());
    const candidates = leg.answerSdp.split("\r\n").filter((line) => line.startsWith("a=candidate:"));
    expect(candidates).toHaveLength(1);
    const [, , , , address, port, , type] = candidates[0]!.split(" ");
    expect([address, type]).toEqual(["192.0.2.10", "host"]);
    expect(Number(port)).toBeGreaterThanOrEqual(base + 40);
    expect(Number(port)).toBeLessThanOrEqual(base + 49);
  });

  it("refuses the offer when the node has no address a browser can reach (bound to 0.0.0.0, no public address)", async () => {
    const unaddressed = new MediaEngine({ ...engineOptions, bind: "0.0.0.0", publicAddress: "0.0.0.0" }, {} as WorkerClient, () => {});
    cleanups.push(() => unaddressed.stop());
    const relay = await engine.open("webrtc-unaddressed", { record: false, capture: false });
    cleanups.push(() => engine.close(relay));
    const browser = await NodeBrowser.offer();
    cleanups.push(() => browser.close());
    await expect(unaddressed.openWebRtcLeg(relay, "caller", browser.offerSdp)).rejects.toThrow(/WEBRTC_PUBLIC_ADDRESS/);
    expect(unaddressed.ports.used).toBe(0);
  });

  it("gives the ICE port back when the leg closes", async () => {
    const relay = await engine.open("webrtc-close", { record: false, capture: false });
    cleanups.push(() => engine.close(relay));
    const used = engine.ports.used;
    const browser = await NodeBrowser.offer();
    cleanups.push(() => browser.close());
    const leg: WebRtcLeg = await engine.openWebRtcLeg(relay, "caller", browser.offerSdp);
    expect(engine.ports.used).toBe(used + 1);
    await leg.close();
    expect(engine.ports.used).toBe(used);
  });
});
