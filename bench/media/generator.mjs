// The load generator of bench/media: one process, driven by run.mjs over IPC. Per call two
// streams, the caller's and the callee's, each sending 20 ms PCMU packets (12-byte RTP header
// with its own SSRC, sequence and timestamp, then 160 bytes of µ-law tone; 50 a second) to its
// side of the relay under test, and counting its packets that come back out of the other side,
// with their delay. Made as cheap as Node allows: a 1 ms timer sends whatever is due, one
// reused buffer per stream (only sequence and timestamp change), no callback per send, no
// address lookup per send, and few sockets, so each wake-up reads many packets.
import { createSocket } from "node:dgram";
import { encodeUlaw } from "../../sip-node/media/g711.ts";

const HOST = "127.0.0.1";
const PTIME_MS = 20;
const SAMPLES = 160;
const TICK_MS = Number(process.env.BENCH_TICK_MS ?? 1);
// Calls start one after another over this long, as they would arrive, so what each does once a
// second or so (the recorder's flush, a capture's chunk) is spread out as it is in service.
const RAMP_MS = Number(process.env.BENCH_RAMP_SECONDS ?? 3) * 1000;

// Tones whose period divides 160 samples, so one payload repeated is a continuous tone.
const CALLER_AUDIO = tone(400);
const CALLEE_AUDIO = tone(1000);

// Sockets the generator sends from and receives on: BENCH_GEN_SOCKETS (16) shared by all legs
// (the relay latches on to the source, so a leg's packets come back to its socket; the SSRC
// tells the streams apart), or 0 for one connected socket per leg, as separate phones would
// have (measured no cheaper or dearer, for the generator or the relay).
const SHARED_SOCKETS = Number(process.env.BENCH_GEN_SOCKETS ?? 16);
const SSRC_INDEX_BITS = 20;
// Delay from send to return, in 0.1 ms buckets up to 1 s (the last bucket holds everything later).
const DELAY_BUCKETS_PER_MS = 10;
const DELAY_BUCKETS = 1000 * DELAY_BUCKETS_PER_MS + 1;
/** Send times are kept for the last 512 packets of each stream (10 s). */
const SENT_RING = 512;
let delays = new Uint32Array(DELAY_BUCKETS);

/** @type {Leg[]} */
let legs = [];
/** @type {import("node:dgram").Socket[]} */
let sockets = [];
let timer = null;
let t0 = 0;
let round = 0;
let cursor = 0;
/** Measurement window: lateness of the send schedule, and CPU, while it is open. */
let window = null;

process.on("disconnect", () => process.exit(0));
process.on("message", async (message) => {
  process.send(await handle(message));
});
process.send({ type: "ready" });

async function handle(message) {
  switch (message.type) {
    case "bind": {
      legs = [];
      sockets = [];
      const calls = [];
      for (let i = 0; i < SHARED_SOCKETS; i++) sockets.push(await bindSocket(true));
      const socketFor = async (j) => (SHARED_SOCKETS > 0 ? sockets[j % SHARED_SOCKETS] : await bindSocket(false));
      for (let i = 0; i < message.calls; i++) {
        const caller = new Leg(legs.length, await socketFor(legs.length), CALLER_AUDIO);
        legs.push(caller);
        const callee = new Leg(legs.length, await socketFor(legs.length), CALLEE_AUDIO);
        legs.push(callee);
        calls.push({ caller: caller.port, callee: callee.port });
      }
      for (const socket of SHARED_SOCKETS > 0 ? sockets : legs.map((l) => l.socket)) socket.on("message", countBySsrc);
      return { type: "bound", ports: calls };
    }
    case "start": {
      message.targets.forEach((t, i) => {
        legs[2 * i].target = t.caller;
        legs[2 * i + 1].target = t.callee;
      });
      if (SHARED_SOCKETS === 0) {
        for (const leg of legs) leg.socket.connect(leg.target, HOST);
        await Promise.all(legs.map((l) => new Promise((r) => (l.socket.remoteAddress ? r() : l.socket.once("connect", r)))));
      }
      // Leg j sends j/n of the 20 ms interval in (the order alternates callers and callees);
      // call i starts i/calls of the ramp in.
      legs.forEach((leg, j) => {
        leg.phase = (j * PTIME_MS) / legs.length;
        leg.firstRound = Math.floor(((j >> 1) * RAMP_MS) / (legs.length / 2) / PTIME_MS);
      });
      t0 = performance.now() + 5;
      round = 0;
      cursor = 0;
      timer = setInterval(tick, TICK_MS);
      return { type: "started" };
    }
    case "mark": {
      if (!window) {
        window = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization(), wall: performance.now(), maxLateMs: 0 };
        for (const leg of legs) leg.openWindow();
        return { type: "marked" };
      }
      let sent = 0;
      for (const leg of legs) sent += leg.closeWindow();
      const cpu = process.cpuUsage(window.cpu);
      const reply = {
        type: "marked",
        sent,
        cpuUs: cpu.user + cpu.system,
        wallUs: (performance.now() - window.wall) * 1000,
        loopBusy: performance.eventLoopUtilization(window.elu).utilization,
        maxLateMs: window.maxLateMs,
      };
      window = null;
      return reply;
    }
    case "stop": {
      clearInterval(timer);
      let received = 0;
      for (const leg of legs) received += leg.received;
      const histogram = Array.from(delays);
      delays = new Uint32Array(DELAY_BUCKETS);
      const all = SHARED_SOCKETS > 0 ? sockets : legs.map((l) => l.socket);
      await Promise.all(all.map((s) => new Promise((r) => s.close(r))));
      legs = [];
      sockets = [];
      return { type: "stopped", received, delays: histogram };
    }
  }
}

/** Sends every packet due by now, in phase order; a late timer catches up at once. */
function tick() {
  const now = performance.now();
  const n = legs.length;
  let due = t0 + round * PTIME_MS + legs[cursor].phase;
  if (window && now - due > window.maxLateMs) window.maxLateMs = now - due;
  while (due <= now) {
    if (round >= legs[cursor].firstRound) legs[cursor].send();
    if (++cursor === n) {
      cursor = 0;
      round++;
    }
    due = t0 + round * PTIME_MS + legs[cursor].phase;
  }
}

/** A socket on 127.0.0.1; a shared one gets a big receive buffer and answers lookups at once. */
async function bindSocket(shared) {
  const socket = shared
    ? createSocket({ type: "udp4", recvBufferSize: 4 << 20, lookup: (address, _options, done) => done(null, address, 4) })
    : createSocket({ type: "udp4" });
  await new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, HOST, resolve);
  });
  return socket;
}

/** A packet back from the relay counts for the leg that sent it, found by its SSRC. */
function countBySsrc(packet) {
  legs[((packet[9] & 0x0f) << 16) | (packet[10] << 8) | packet[11]]?.count(packet);
}

class Leg {
  constructor(index, socket, audio) {
    this.index = index;
    this.socket = socket;
    this.port = socket.address().port;
    this.target = 0;
    this.phase = 0;
    this.firstRound = 0;
    this.seq = (Math.random() * 0x10000) | 0;
    this.timestamp = (Math.random() * 0x1_0000_0000) >>> 0;
    this.packet = Buffer.alloc(12 + SAMPLES);
    this.packet[0] = 0x80; // V=2
    this.packet[1] = 0; // PT 0, PCMU
    const salt = (Math.random() * (1 << (32 - SSRC_INDEX_BITS))) >>> 0;
    this.packet.writeUInt32BE(((salt << SSRC_INDEX_BITS) | index) >>> 0, 8); // SSRC
    this.packet.set(audio, 12);
    this.sentAt = new Float64Array(SENT_RING);
    // Packets of this stream with a sequence number in [windowStart, windowStart + windowLength) count.
    this.windowStart = 0;
    this.windowLength = 0;
    this.received = 0;
  }

  send() {
    const p = this.packet;
    const seq = this.seq;
    const ts = this.timestamp;
    p[2] = seq >>> 8;
    p[3] = seq & 0xff;
    p[4] = ts >>> 24;
    p[5] = (ts >>> 16) & 0xff;
    p[6] = (ts >>> 8) & 0xff;
    p[7] = ts & 0xff;
    this.sentAt[seq & (SENT_RING - 1)] = performance.now();
    if (SHARED_SOCKETS > 0) this.socket.send(p, this.target, HOST);
    else this.socket.send(p);
    this.seq = (seq + 1) & 0xffff;
    this.timestamp = (ts + SAMPLES) >>> 0;
  }

  /** One of this stream's packets came back through the relay. */
  count(packet) {
    const seq = (packet[2] << 8) | packet[3];
    if (((seq - this.windowStart) & 0xffff) >= this.windowLength) return;
    this.received++;
    const bucket = Math.floor((performance.now() - this.sentAt[seq & (SENT_RING - 1)]) * DELAY_BUCKETS_PER_MS);
    delays[bucket < DELAY_BUCKETS ? bucket : DELAY_BUCKETS - 1]++;
  }

  /** From the next packet on, this stream's packets count (until closeWindow fixes the end). */
  openWindow() {
    this.windowStart = this.seq;
    this.windowLength = 0x8000;
  }

  /** Ends the window before the next packet; returns how many packets were sent in it. */
  closeWindow() {
    this.windowLength = (this.seq - this.windowStart) & 0xffff;
    return this.windowLength;
  }
}

/** 160 µ-law bytes of a sine at `hz` (8000/hz must divide 160), about -12 dBFS. */
function tone(hz) {
  const out = new Uint8Array(SAMPLES);
  for (let i = 0; i < SAMPLES; i++) out[i] = encodeUlaw(8000 * Math.sin((2 * Math.PI * hz * i) / 8000));
  return out;
}
