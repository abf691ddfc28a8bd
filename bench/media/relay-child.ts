// The relay under test in bench/media: one process, driven by run.mjs over IPC. Its argument:
//  - "bare": per call two port pairs from the same PortAllocator MediaRelay uses, each RTP
//    datagram sent on as-is out of the other pair to the peer's SDP port, with the same send
//    call MediaRelay makes; nothing else: what a Node UDP relay costs on this machine.
//  - "full": MediaRelay per call with processing "full" (record and capture on), told where
//    the peers are by parsed SDP as the B2BUA does, into a temporary spool folder.
//  - "none", "record", "capture": MediaRelay with less processing, to see what each part costs.
//  - "dialer": a web dialer call: "full", with the caller side spoken for by the WebRTC bridge
//    (sip-node/webrtc/), which answers the browser-like client's offer (browser-generator.ts)
//    and bridges its SRTP Opus to the relay's G.711 (transcoding both ways).
// It reports its own CPU time (process.cpuUsage, all threads), event-loop use and the packets
// it took in over the measurement window.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import { PortAllocator, type PortPair } from "../../sip-node/media/ports.ts";
import { MediaRelay } from "../../sip-node/media/relay.ts";
import { parseSdpAudio } from "../../sip-node/media/sdp.ts";
import { WebRtcLeg } from "../../sip-node/webrtc/webrtc-leg.ts";

/** A dialer call's browser offer travels with its peer ports, and the bridge's answer back with the relay's. */
type Ports = { caller: number; callee: number; offer?: string; answer?: string };
type Request = { type: "open"; peers: Ports[] } | { type: "mark" } | { type: "close" };
type Files = { wavBytes: number; pcapBytes: number };
type Reply =
  | { type: "opened"; ports: Ports[] }
  | { type: "marked"; cpuUs: number; wallUs: number; loopBusy: number; packets: number; rssBytes: number }
  | ({ type: "closed" } & Files);
type Call = { local: Ports; packets: () => number; close: () => Promise<Files> };

const MODES = ["bare", "full", "none", "record", "capture", "dialer"];
const mode = process.argv[2] ?? "";
if (!MODES.includes(mode)) throw new Error(`usage: relay-child.ts ${MODES.join("|")} (got ${mode})`);
const record = mode === "full" || mode === "record" || mode === "dialer";
const capture = mode === "full" || mode === "capture" || mode === "dialer";
const HOST = "127.0.0.1";
const ports = new PortAllocator(
  { portMin: Number(process.env.BENCH_RTP_MIN ?? 20000), portMax: Number(process.env.BENCH_RTP_MAX ?? 29999) },
  HOST,
);
const spoolDir = mkdtempSync(join(tmpdir(), "bench-media-spool-"));
let calls: Call[] = [];
let window: { cpu: NodeJS.CpuUsage; elu: EventLoopUtilization; wall: bigint; packets: number } | null = null;
let serial = 0;

process.on("exit", () => rmSync(spoolDir, { recursive: true, force: true }));
process.on("disconnect", () => process.exit(0));
process.on("message", (message: Request) => {
  handle(message).then(
    (reply) => process.send!(reply),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
process.send!({ type: "ready" });

async function handle(message: Request): Promise<Reply> {
  switch (message.type) {
    case "open": {
      calls = [];
      for (const peer of message.peers) calls.push(mode === "bare" ? await openBare(peer) : await openRelay(peer));
      if (mode === "dialer" && message.peers.some((p) => !p.offer)) throw new Error("dialer mode needs browser offers");
      return { type: "opened", ports: calls.map((c) => c.local) };
    }
    case "mark": {
      // The first mark opens the measurement window, the second closes it.
      const packets = calls.reduce((sum, c) => sum + c.packets(), 0);
      if (!window) {
        window = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization(), wall: process.hrtime.bigint(), packets };
        return { type: "marked", cpuUs: 0, wallUs: 0, loopBusy: 0, packets: 0, rssBytes: 0 };
      }
      const cpu = process.cpuUsage(window.cpu);
      const reply: Reply = {
        type: "marked",
        cpuUs: cpu.user + cpu.system,
        wallUs: Number(process.hrtime.bigint() - window.wall) / 1000,
        loopBusy: performance.eventLoopUtilization(window.elu).utilization,
        packets: packets - window.packets,
        rssBytes: process.memoryUsage.rss(),
      };
      window = null;
      return reply;
    }
    case "close": {
      const done = await Promise.all(calls.map((c) => c.close()));
      calls = [];
      return { type: "closed", wavBytes: done.reduce((s, d) => s + d.wavBytes, 0), pcapBytes: done.reduce((s, d) => s + d.pcapBytes, 0) };
    }
  }
}

/** Two port pairs; each datagram goes out of the other pair to the peer's port, untouched. */
async function openBare(peer: Ports): Promise<Call> {
  const caller = await ports.allocate();
  const callee = await ports.allocate();
  let packets = 0;
  const forward = (from: PortPair, to: PortPair, port: number) =>
    from.rtp.on("message", (packet) => {
      packets++;
      to.rtp.send(packet, port, HOST);
    });
  forward(caller, callee, peer.callee);
  forward(callee, caller, peer.caller);
  return {
    local: { caller: caller.port, callee: callee.port },
    packets: () => packets,
    close: async () => {
      ports.release(caller);
      ports.release(callee);
      return { wavBytes: 0, pcapBytes: 0 };
    },
  };
}

/** Our relay as the B2BUA opens it for a call, each side's SDP parsed from a body. */
async function openRelay(peer: Ports): Promise<Call> {
  const relay = await MediaRelay.open(ports, {
    callId: `bench-${process.pid}-${++serial}`,
    publicAddress: HOST,
    record,
    capture,
    spoolDir,
  });
  const sdp = (port: number) =>
    parseSdpAudio(
      `v=0\r\no=- 1 1 IN IP4 ${HOST}\r\ns=-\r\nc=IN IP4 ${HOST}\r\nt=0 0\r\nm=audio ${port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n`,
    )!;
  let leg: WebRtcLeg | null = null;
  if (peer.offer) {
    // As MediaEngine.openWebRtcLeg does it: a lent port of the range for ICE, the leg speaking for the caller.
    const lent = await ports.lend();
    leg = await WebRtcLeg.answer({ offerSdp: peer.offer, bindAddress: HOST, publicAddress: HOST, port: lent.port, onClose: lent.release });
    leg.connect(relay, "caller");
    relay.setRemote("caller", parseSdpAudio(leg.relaySdp)!, "PCMU");
  } else relay.setRemote("caller", sdp(peer.caller), "PCMU");
  relay.setRemote("callee", sdp(peer.callee), "PCMU");
  return {
    local: { caller: relay.localPort("caller"), callee: relay.localPort("callee"), ...(leg ? { answer: leg.answerSdp } : {}) },
    packets: () => {
      const stats = relay.stats();
      return stats.caller.packets + stats.callee.packets;
    },
    close: async () => {
      await leg?.close();
      const summary = await relay.close();
      const files = { wavBytes: 0, pcapBytes: 0 };
      for (const file of summary.files) {
        files[file.name === "recording.wav" ? "wavBytes" : "pcapBytes"] += statSync(file.path).size;
        await rm(file.path, { force: true });
      }
      return files;
    },
  };
}
