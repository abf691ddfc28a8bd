// The load generator of bench/media's dialer rows: one process, driven by run.mjs over IPC with
// the same messages as generator.mjs. Per call a browser-like WebRTC client (werift, as
// test/sip-node/webrtc-browser.ts plays it: ICE, DTLS-SRTP, Opus) stands for the web dialer's
// caller, and a plain PCMU stream on its own socket for the destination. Each sends 50 packets
// a second to its side (the browser Opus frames of a 400 Hz tone, encoded once, or PCMU with
// the argument "PCMU"; the destination 160 bytes of a 1 kHz µ-law tone) and counts its packets
// that come back out of the other side, with their delay: the destination's by the sequence
// numbers the bridge keeps, the browser's by its timestamps (the bridge numbers what it sends
// the browser itself but keeps the timing: 960 units of 48 kHz for each 160 of 8 kHz).
import { createSocket, type Socket } from "node:dgram";
import type { RtpPacket } from "werift";
import { encodeUlaw } from "../../sip-node/media/g711.ts";
import { NodeBrowser } from "../../test/sip-node/webrtc-browser.ts";

const HOST = "127.0.0.1";
const PTIME_MS = 20;
const SAMPLES = 160;
const RAMP_MS = Number(process.env.BENCH_RAMP_SECONDS ?? 3) * 1000;
const DELAY_BUCKETS_PER_MS = 10;
const DELAY_BUCKETS = 1000 * DELAY_BUCKETS_PER_MS + 1;
const SENT_RING = 512;
/** Browsers set up at once (each an ICE and DTLS handshake with the bridge). */
const CONNECT_BATCH = 20;
/** "opus" (what Chrome prefers) or "PCMU": browsers offering only G.711, so the bridge does not transcode. */
const CODEC = process.argv[2] === "PCMU" ? "PCMU" : "opus";
const TIMESTAMP_STEP = CODEC === "opus" ? 960 : SAMPLES;
let delays = new Uint32Array(DELAY_BUCKETS);

type Target = { caller: number; callee: number; answer?: string };
type Message = { type: "bind"; calls: number } | { type: "start"; targets: Target[] } | { type: "mark" } | { type: "stop" };

/** One direction of a call: what it sent (sequence numbers and when), what came back in the window. */
class Stream {
  seq = (Math.random() * 0x10000) | 0;
  phase = 0;
  firstRound = 0;
  readonly firstSeq = this.seq;
  readonly sentAt = new Float64Array(SENT_RING);
  windowStart = 0;
  windowLength = 0;
  received = 0;
  readonly send: (seq: number) => void;

  constructor(send: (seq: number) => void) {
    this.send = send;
  }

  tick(): void {
    this.sentAt[this.seq & (SENT_RING - 1)] = performance.now();
    this.send(this.seq);
    this.seq = (this.seq + 1) & 0xffff;
  }

  count(seq: number): void {
    if (((seq - this.windowStart) & 0xffff) >= this.windowLength) return;
    this.received++;
    const bucket = Math.floor((performance.now() - this.sentAt[seq & (SENT_RING - 1)]!) * DELAY_BUCKETS_PER_MS);
    delays[bucket < DELAY_BUCKETS ? bucket : DELAY_BUCKETS - 1]!++;
  }

  openWindow(): void {
    this.windowStart = this.seq;
    this.windowLength = 0x8000;
  }

  closeWindow(): number {
    this.windowLength = (this.seq - this.windowStart) & 0xffff;
    return this.windowLength;
  }
}

type Call = { browser: NodeBrowser; socket: Socket; target: number; caller: Stream; callee: Stream };

let calls: Call[] = [];
let streams: Stream[] = [];
let timer: ReturnType<typeof setInterval> | null = null;
let t0 = 0;
let round = 0;
let cursor = 0;
let window: { cpu: NodeJS.CpuUsage; elu: ReturnType<typeof performance.eventLoopUtilization>; wall: number } | null = null;
const CALLEE_AUDIO = tone(1000);
/** The browser's 20 ms frame, encoded once. */
let frame: Buffer | null = null;

process.on("disconnect", () => process.exit(0));
process.on("message", (message: Message) => {
  handle(message).then(
    (reply) => process.send!(reply),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
process.send!({ type: "ready" });

async function handle(message: Message): Promise<unknown> {
  switch (message.type) {
    case "bind": {
      calls = [];
      for (let i = 0; i < message.calls; i++) calls.push(await newCall());
      return { type: "bound", ports: calls.map((c) => ({ caller: 0, callee: c.socket.address().port, offer: c.browser.offerSdp })) };
    }
    case "start": {
      for (let i = 0; i < message.targets.length; i += CONNECT_BATCH) {
        await Promise.all(message.targets.slice(i, i + CONNECT_BATCH).map((t, j) => calls[i + j]!.browser.accept(t.answer!)));
      }
      message.targets.forEach((t, i) => (calls[i]!.target = t.callee));
      streams = calls.flatMap((c) => [c.caller, c.callee]);
      streams.forEach((stream, j) => {
        stream.phase = (j * PTIME_MS) / streams.length;
        stream.firstRound = Math.floor(((j >> 1) * RAMP_MS) / (streams.length / 2) / PTIME_MS);
      });
      t0 = performance.now() + 5;
      round = 0;
      cursor = 0;
      timer = setInterval(tick, 1);
      return { type: "started" };
    }
    case "mark": {
      if (!window) {
        window = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization(), wall: performance.now() };
        for (const stream of streams) stream.openWindow();
        return { type: "marked" };
      }
      const sent = streams.reduce((n, s) => n + s.closeWindow(), 0);
      const cpu = process.cpuUsage(window.cpu);
      const reply = {
        type: "marked",
        sent,
        cpuUs: cpu.user + cpu.system,
        wallUs: (performance.now() - window.wall) * 1000,
        loopBusy: performance.eventLoopUtilization(window.elu).utilization,
      };
      window = null;
      return reply;
    }
    case "stop": {
      if (timer) clearInterval(timer);
      const received = streams.reduce((n, s) => n + s.received, 0);
      const histogram = Array.from(delays);
      delays = new Uint32Array(DELAY_BUCKETS);
      await Promise.all(calls.map(async (c) => (await c.browser.close(), c.socket.close())));
      calls = [];
      streams = [];
      return { type: "stopped", received, delays: histogram };
    }
  }
}

async function newCall(): Promise<Call> {
  const socket = createSocket({ type: "udp4", lookup: (address, _options, done) => done(null, address, 4) });
  await new Promise<void>((resolve) => socket.bind(0, HOST, resolve));
  let firstHeard: number | null = null;
  const call = {} as Call;
  // The browser hears the destination's stream: its n-th packet is 960 n after the first.
  const onRtp = (rtp: RtpPacket) => {
    firstHeard ??= rtp.header.timestamp;
    const index = Math.round(((rtp.header.timestamp - firstHeard) | 0) / TIMESTAMP_STEP);
    call.callee.count((call.callee.firstSeq + index) & 0xffff);
  };
  const browser = await NodeBrowser.offer({ only: CODEC, onRtp });
  frame ??= CODEC === "opus" ? browser.encodeOpus(toneSamples(400)) : Buffer.from(tone(400));
  let timestamp = (Math.random() * 2 ** 32) >>> 0;
  const packet = Buffer.alloc(12 + SAMPLES);
  packet[0] = 0x80;
  packet.set(CALLEE_AUDIO, 12);
  packet.writeUInt32BE((Math.random() * 2 ** 32) >>> 0, 8);
  let calleeTimestamp = (Math.random() * 2 ** 32) >>> 0;
  Object.assign(call, {
    browser,
    socket,
    target: 0,
    caller: new Stream((seq) => {
      browser.sendEncoded(frame!, timestamp, seq);
      timestamp = (timestamp + TIMESTAMP_STEP) >>> 0;
    }),
    callee: new Stream((seq) => {
      packet.writeUInt16BE(seq, 2);
      packet.writeUInt32BE(calleeTimestamp, 4);
      calleeTimestamp = (calleeTimestamp + SAMPLES) >>> 0;
      socket.send(packet, call.target, HOST);
    }),
  });
  // The destination hears the browser's stream, its sequence numbers kept by the bridge.
  socket.on("message", (m: Buffer) => (m[1]! & 0x7f) === 0 && call.caller.count((m[2]! << 8) | m[3]!));
  return call;
}

function tick(): void {
  const now = performance.now();
  const n = streams.length;
  let due = t0 + round * PTIME_MS + streams[cursor]!.phase;
  while (due <= now) {
    if (round >= streams[cursor]!.firstRound) streams[cursor]!.tick();
    if (++cursor === n) {
      cursor = 0;
      round++;
    }
    due = t0 + round * PTIME_MS + streams[cursor]!.phase;
  }
}

function toneSamples(hz: number): Int16Array {
  return Int16Array.from({ length: SAMPLES }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / 8000)));
}

function tone(hz: number): Uint8Array {
  return Uint8Array.from(toneSamples(hz), (s) => encodeUlaw(s));
}
