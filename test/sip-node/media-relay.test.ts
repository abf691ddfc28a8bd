// The relay on its own, with two UDP sockets standing in for the caller and the callee.
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PortAllocator, type PortPair } from "../../sip-node/media/ports.ts";
import { LATCH_WINDOW_MS, MediaRelay } from "../../sip-node/media/relay.ts";
import { sequenceOf, ssrcOf } from "../../sip-node/media/rtp.ts";
import { parseSdpAudio } from "../../sip-node/media/sdp.ts";
import { ntpMiddle32, RtcpRttTracker } from "../../sip-node/media/quality.ts";
import { pause, until } from "./harness.ts";

const base = 40_000 + (process.pid % 50) * 100;
const ports = new PortAllocator({ portMin: base, portMax: base + 99 }, "127.0.0.1");
const spoolDir = mkdtempSync(join(tmpdir(), "relay-test-"));
const open: Array<{ relay: MediaRelay; sockets: Socket[] }> = [];

type Party = { socket: Socket; port: number; received: Buffer[] };

async function party(address = "127.0.0.1"): Promise<Party> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  const received: Buffer[] = [];
  socket.on("message", (m) => received.push(m));
  return { socket, port: socket.address().port, received };
}

const sdpFor = (port: number) =>
  parseSdpAudio(`v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${port} RTP/AVP 0\r\n`)!;

function rtp(seq: number, ssrc: number): Buffer {
  const packet = Buffer.alloc(12 + 160, 0xff);
  packet[0] = 0x80;
  packet[1] = 0;
  packet.writeUInt16BE(seq, 2);
  packet.writeUInt32BE(seq * 160, 4);
  packet.writeUInt32BE(ssrc, 8);
  return packet;
}

async function call(record = false) {
  const options = { callId: `call-${open.length}`, publicAddress: "127.0.0.1", record, capture: record, spoolDir };
  const relay = await MediaRelay.open(ports, options);
  const caller = await party();
  const callee = await party();
  relay.setRemote("caller", sdpFor(caller.port), "PCMU");
  relay.setRemote("callee", sdpFor(callee.port), "PCMU");
  open.push({ relay, sockets: [caller.socket, callee.socket] });
  const send = (who: Party, packet: Buffer, rtcp = false) =>
    who.socket.send(packet, relay.localPort(who === caller ? "caller" : "callee") + (rtcp ? 1 : 0), "127.0.0.1");
  return { relay, caller, callee, send };
}

afterEach(async () => {
  for (const { relay, sockets } of open.splice(0)) {
    await relay.close().catch(() => {});
    for (const s of sockets) s.close();
  }
});

describe("the RTP relay", () => {
  it("leaves nothing in the spool for a call that carried no media", async () => {
    const { relay, caller, callee } = await call(true);
    open.pop();
    const summary = await relay.close();
    caller.socket.close();
    callee.socket.close();
    expect(summary).toMatchObject({ files: [], qos: null, mos: null });
    expect(readdirSync(spoolDir).filter((f) => f.startsWith(relay.callId))).toEqual([]);
  });

  it("carries RTP both ways and refuses a stranger once the peer is known", async () => {
    const { relay, caller, callee, send } = await call();
    for (let i = 0; i < 5; i++) {
      send(caller, rtp(i, 1111));
      send(callee, rtp(100 + i, 2222));
    }
    await until("both streams relayed", () => callee.received.length === 5 && caller.received.length === 5);
    const stranger = await party();
    stranger.socket.send(rtp(9, 9999), relay.localPort("caller"), "127.0.0.1");
    await until("the stranger's packet refused", () => relay.stats().caller.errors === 1);
    stranger.socket.close();
    expect(callee.received.map((p) => sequenceOf(p))).toEqual([0, 1, 2, 3, 4]);
    expect(caller.received.map((p) => sequenceOf(p))).toEqual([100, 101, 102, 103, 104]);
    expect(relay.stats().caller).toMatchObject({ packets: 5, errors: 1, lost: 0, ssrc: 1111, endpoint: `127.0.0.1:${caller.port}` });
  });

  it("keeps one stream toward the caller when the callee's sender changes", async () => {
    const { caller, callee, send } = await call();
    send(callee, rtp(500, 0xaaaa));
    send(callee, rtp(501, 0xaaaa));
    await until("the first sender's packets relayed", () => caller.received.length === 2);
    send(callee, rtp(7, 0xbbbb));
    send(callee, rtp(8, 0xbbbb));
    await until("the second sender's packets relayed", () => caller.received.length === 4);
    expect(caller.received.map((p) => [ssrcOf(p), sequenceOf(p)])).toEqual([
      [0xaaaa, 500],
      [0xaaaa, 501],
      [0xaaaa, 502],
      [0xaaaa, 503],
    ]);
  });

  it("measures a leg's round trip from a receiver report answering a relayed sender report", async () => {
    // The relay's clock is faked: the round trip is what the clock says passed, not what a loaded machine took.
    vi.useFakeTimers({ toFake: ["Date"] });
    const observed = vi.spyOn(RtcpRttTracker.prototype, "observe");
    try {
      const { relay, caller, callee, send } = await call();
      send(caller, rtp(0, 1111));
      send(callee, rtp(0, 2222));
      await until("both parties latched", () => caller.received.length === 1 && callee.received.length === 1);
      // The caller's sender report (NTP middle 32 bits = LSR), then the callee's receiver report
      // naming it, sent 30 ms later with 10 ms of DLSR: the callee's leg has a 20 ms round trip.
      const sr = Buffer.alloc(28);
      sr.writeUInt8(0x80, 0);
      sr.writeUInt8(200, 1);
      sr.writeUInt16BE(6, 2);
      sr.writeUInt32BE(1111, 4);
      const lsr = ntpMiddle32(Date.now());
      sr.writeUInt32BE(lsr >>> 16, 8);
      sr.writeUInt32BE((lsr << 16) >>> 0, 12);
      send(caller, sr, true);
      await until("the relay saw the sender report", () => observed.mock.calls.length === 1);
      vi.setSystemTime(Date.now() + 30);
      const rr = Buffer.alloc(32);
      rr.writeUInt8(0x81, 0);
      rr.writeUInt8(201, 1);
      rr.writeUInt16BE(7, 2);
      rr.writeUInt32BE(2222, 4);
      rr.writeUInt32BE(1111, 8);
      rr.writeUInt32BE(lsr, 24);
      rr.writeUInt32BE(Math.round(0.01 * 0x10000), 28);
      send(callee, rr, true);
      const rtt = await until("the round trip measured", () => relay.stats().callee.rtt_ms);
      expect(rtt).toBeGreaterThanOrEqual(15);
      expect(rtt).toBeLessThan(60);
      expect(relay.stats().caller.rtt_ms).toBeNull();
    } finally {
      observed.mockRestore();
      vi.useRealTimers();
    }
  });

  it("hands over a recording and a capture per leg when it closes", async () => {
    const { relay, caller, callee, send } = await call(true);
    for (let i = 0; i < 10; i++) {
      send(caller, rtp(i, 1111));
      send(callee, rtp(i, 2222));
      await pause(5); // deliberate: paced like a call's media, not all in one tick
    }
    await until("both streams relayed", () => caller.received.length >= 10 && callee.received.length >= 10);
    expect(caller.received).toHaveLength(10);
    open.pop();
    const summary = await relay.close();
    caller.socket.close();
    callee.socket.close();
    expect(summary.files.map((f) => f.name).sort()).toEqual(["callee.pcap", "caller.pcap", "recording.wav"]);
    expect(summary).toMatchObject({ packet_loss_pct: 0, media_ip: "127.0.0.1", dtmf: [] });
    expect(summary.qos?.callee.packets).toBe(10);
    expect(ports.used).toBe(0);
  });

  it("ignores RTP from a stranger's address mid-call: not relayed, not recorded, the latch stays", async () => {
    const { relay, caller, callee, send } = await call(true);
    // A stranger (another address) sprays the caller's port first, then again mid-call.
    const stranger = await party("127.0.0.2");
    open.at(-1)!.sockets.push(stranger.socket);
    stranger.socket.send(rtp(900, 9999), relay.localPort("caller"), "127.0.0.1");
    await until("the stranger's first packet refused", () => relay.stats().caller.errors === 1);
    for (let i = 0; i < 5; i++) {
      send(caller, rtp(i, 1111));
      send(callee, rtp(100 + i, 2222));
      await pause(5); // deliberate: paced like a call's media, not all in one tick
    }
    for (let i = 0; i < 5; i++) stranger.socket.send(rtp(901 + i, 9999), relay.localPort("caller"), "127.0.0.1");
    stranger.socket.send(rtp(950, 9999), relay.localPort("callee"), "127.0.0.1");
    await until(
      "the parties' packets relayed and the stranger's refused",
      () =>
        callee.received.length >= 5 && caller.received.length >= 5 && relay.stats().caller.errors >= 6 && relay.stats().callee.errors >= 1,
    );
    expect(callee.received.map((p) => ssrcOf(p))).toEqual([1111, 1111, 1111, 1111, 1111]);
    expect(caller.received.map((p) => ssrcOf(p))).toEqual([2222, 2222, 2222, 2222, 2222]);
    expect(stranger.received).toEqual([]);
    expect(relay.stats().caller).toMatchObject({ packets: 5, ssrc: 1111, endpoint: `127.0.0.1:${caller.port}` });
    expect(relay.stats().callee).toMatchObject({ packets: 5, ssrc: 2222, endpoint: `127.0.0.1:${callee.port}` });
    open.pop();
    const summary = await relay.close();
    for (const s of [caller, callee, stranger]) s.socket.close();
    // The recording and the captures hold the parties' packets only.
    expect(summary.qos).toMatchObject({ caller: { packets: 5 }, callee: { packets: 5 } });
    const callerPcap = summary.files.find((f) => f.name === "caller.pcap")!;
    expect(pcapPacketCount(readFileSync(callerPcap.path))).toBe(10);
  });

  it("latches a NATed party's other port only inside the window after its SDP", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const { relay, caller, callee, send } = await call();
      // The caller's RTP comes from another port of the address its SDP names (NAT): latched.
      const natted = await party();
      open.at(-1)!.sockets.push(natted.socket);
      natted.socket.send(rtp(1, 1111), relay.localPort("caller"), "127.0.0.1");
      await until("the NATed packet relayed", () => callee.received.length >= 1);
      expect(relay.stats().caller.endpoint).toBe(`127.0.0.1:${natted.port}`);
      expect(callee.received).toHaveLength(1);
      // The callee's window has passed: another port of its address is refused, the one named is heard.
      vi.setSystemTime(Date.now() + LATCH_WINDOW_MS + 1_000);
      const late = await party();
      open.at(-1)!.sockets.push(late.socket);
      late.socket.send(rtp(2, 2222), relay.localPort("callee"), "127.0.0.1");
      await until("the late port refused", () => relay.stats().callee.errors === 1);
      expect(natted.received).toHaveLength(0);
      send(callee, rtp(3, 2222));
      await until("the named port's packet relayed", () => natted.received.length >= 1);
      // Toward the caller's latched source, not the port its SDP named.
      expect(natted.received).toHaveLength(1);
      expect(caller.received).toHaveLength(0);
      expect(relay.stats().callee.endpoint).toBe(`127.0.0.1:${callee.port}`);
    } finally {
      vi.useRealTimers();
    }
  });

  it("hands out RTP ports at random, not in turn", async () => {
    const wide = new PortAllocator({ portMin: base + 100, portMax: base + 2099 }, "127.0.0.1");
    const pairs: PortPair[] = [];
    for (let i = 0; i < 8; i++) pairs.push(await wide.allocate());
    const steps = pairs.slice(1).map((p, i) => p.port - pairs[i]!.port);
    for (const p of pairs) wide.release(p);
    expect(steps.every((step) => step === 2)).toBe(false);
    expect(new Set(steps).size).toBeGreaterThan(1);
  });
});

/** Packets in a classic pcap file (24-byte header, 16-byte record headers). */
function pcapPacketCount(file: Buffer): number {
  let count = 0;
  for (let at = 24; at + 16 <= file.length; at += 16 + file.readUInt32LE(at + 8)) count++;
  return count;
}
