// Where the node may send SIP and RTP: never to loopback, private, link-local or CGNAT addresses
// (destinations and SDP c= lines come from customers), unless the operator allows a range or the
// node itself listens on loopback.
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PortAllocator } from "../../sip-node/media/ports.ts";
import { MediaRelay } from "../../sip-node/media/relay.ts";
import { parseSdpAudio } from "../../sip-node/media/sdp.ts";
import { sendOptions } from "../../sip-node/monitor/options-pinger.ts";
import { AddressPolicy } from "../../sip-node/sip/address-policy.ts";
import type { SipRequest } from "../../sip-node/sip/message.ts";
import { UdpTransport } from "../../sip-node/sip/transport.ts";
import { pause, until } from "./harness.ts";
import { plainLayer } from "./plain-layer.ts";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A UDP socket on 127.0.0.1 standing in for an internal host: what reaches it. */
async function internalHost(): Promise<{ socket: Socket; port: number; received: Buffer[] }> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const received: Buffer[] = [];
  socket.on("message", (m) => received.push(m));
  cleanup.push(() => socket.close());
  return { socket, port: socket.address().port, received };
}

describe("AddressPolicy", () => {
  const policy = new AddressPolicy([], "203.0.113.10");

  it("refuses loopback, private, link-local, CGNAT, multicast and their IPv6 forms", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "ff02::1",
      "::ffff:10.0.0.1",
      "::ffff:127.0.0.1",
      "64:ff9b::a00:1",
      "2002:c0a8:101::1",
      "sbc.example.net",
    ]) {
      expect(policy.allows(address), address).toBe(false);
    }
  });

  it("allows public addresses", () => {
    for (const address of ["203.0.113.7", "8.8.8.8", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808"]) {
      expect(policy.allows(address), address).toBe(true);
    }
  });

  it("allows the operator's own ranges, and loopback to a node listening on loopback", () => {
    const operator = new AddressPolicy(["10.20.0.0/16", "fd12:3456::/32"], "203.0.113.10");
    expect(operator.allows("10.20.5.6")).toBe(true);
    expect(operator.allows("10.21.0.1")).toBe(false);
    expect(operator.allows("fd12:3456::9")).toBe(true);
    expect(operator.allows("127.0.0.1")).toBe(false);
    const local = new AddressPolicy([], "127.0.0.1");
    expect(local.allows("127.0.0.1")).toBe(true);
    expect(local.allows("::1")).toBe(true);
    expect(local.allows("10.0.0.1")).toBe(false);
  });
});

describe("a node that may not reach loopback (it listens elsewhere)", () => {
  const refusesLoopback = new AddressPolicy([], "203.0.113.10");

  it("sends no RTP to an SDP c= address in a refused range, and hears none from it", async () => {
    const base = 41_000 + (process.pid % 50) * 100;
    const ports = new PortAllocator({ portMin: base, portMax: base + 99 }, "127.0.0.1");
    const spoolDir = mkdtempSync(join(tmpdir(), "policy-relay-"));
    const relay = await MediaRelay.open(ports, {
      callId: "policy",
      publicAddress: "127.0.0.1",
      record: false,
      capture: false,
      spoolDir,
      allowsPeer: (address) => refusesLoopback.allows(address),
    });
    cleanup.push(() => relay.close());
    const victim = await internalHost();
    const caller = await internalHost();
    const sdp = (port: number) => parseSdpAudio(`v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio ${port} RTP/AVP 0\r\n`)!;
    relay.setRemote("caller", sdp(caller.port), "PCMU");
    relay.setRemote("callee", sdp(victim.port), "PCMU");
    const packet = Buffer.alloc(172, 0xff);
    packet[0] = 0x80;
    for (let i = 0; i < 5; i++) caller.socket.send(packet, relay.localPort("caller"), "127.0.0.1");
    await until("the caller's packets refused", () => relay.stats().caller.errors === 5);
    expect(victim.received).toEqual([]);
    expect(relay.stats().caller.packets).toBe(0);
  });

  it("sends no SIP to a destination in a refused range: the request fails as a 503, /check says why", async () => {
    const transport = await UdpTransport.bind("127.0.0.1", 0);
    const layer = plainLayer(transport);
    cleanup.push(() => layer.close());
    layer.destinationFilter = (to) => refusesLoopback.allows(to.address);
    const internal = await internalHost();
    const request: SipRequest = {
      kind: "request",
      method: "INVITE",
      uri: `sip:1@127.0.0.1:${internal.port}`,
      version: "SIP/2.0",
      headers: [
        ["Via", `SIP/2.0/UDP 127.0.0.1:${transport.local.port};branch=z9hG4bKpolicy1`],
        ["From", "<sip:a@127.0.0.1>;tag=1"],
        ["To", "<sip:1@127.0.0.1>"],
        ["Call-ID", "policy-1"],
        ["CSeq", "1 INVITE"],
      ],
      body: new Uint8Array(0),
    };
    const status = await new Promise<number | null>((resolve) =>
      layer.sendRequest(request, { address: "127.0.0.1", port: internal.port, protocol: "udp" }, (r) => resolve(r?.status ?? null)),
    );
    expect(status).toBe(503);
    const check = await sendOptions(layer, transport.local, { host: "127.0.0.1", port: internal.port, transport: "udp" }, 300);
    expect(check).toEqual({ code: null, rtt_ms: null, error: expect.stringMatching(/address range this node does not send to/) });
    await pause(50); // deliberate: a window in which nothing may reach the refused address
    expect(internal.received).toEqual([]);
  });
});
