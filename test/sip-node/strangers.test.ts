// What a source outside the whitelist gets from the node: nothing at all, and no state. A B2BUA
// on real UDP and TCP sockets on 127.0.0.1, whitelisting 127.0.0.1 only; strangers send from
// other loopback addresses. And the tables that hold state have caps.
import { createSocket } from "node:dgram";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseCidr, type Cidr } from "../../schema/cidr.ts";
import { B2bua } from "../../sip-node/b2bua/b2bua.ts";
import { CallRouter } from "../../sip-node/calls/call-router.ts";
import { CallRegistry } from "../../sip-node/calls/registry.ts";
import { SourceThrottle } from "../../sip-node/b2bua/source-throttle.ts";
import { WhitelistFilter } from "../../sip-node/control/whitelist.ts";
import type { WorkerClient } from "../../sip-node/control/worker-client.ts";
import { MediaEngine } from "../../sip-node/media/engine.ts";
import type { SipRequest } from "../../sip-node/sip/message.ts";
import { sourceKey, TcpTransport } from "../../sip-node/sip/tcp-transport.ts";
import { TransactionLayer, type TransactionLimits, type TimerValues } from "../../sip-node/sip/transactions.ts";
import { TransportSet, UdpTransport } from "../../sip-node/sip/transport.ts";
import { freeSipPort, pause, until } from "./harness.ts";

const PEER = "127.0.0.1";
const STRANGER = "127.0.0.2";
const FAST: TimerValues = { T1: 20, T2: 160, T4: 200 };

type Node = { layer: TransactionLayer; port: number; logs: string[] };
const nodes: Node[] = [];
const sockets: Array<{ close(): void }> = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const node of nodes.splice(0)) await node.layer.close();
});

/** A node whose whitelist holds 127.0.0.1 only; its Worker is unreachable (every admission fails: 503). */
async function startNode(
  options: { limits?: TransactionLimits; tcpLimits?: { maxConnections: number; maxPerSource: number } } = {},
): Promise<Node> {
  const whitelist = new WhitelistFilter();
  const peer = parseCidr(`${PEER}/32`) as Cidr;
  whitelist.replace(1, [{ start: peer.start, end: peer.end }]);
  const logs: string[] = [];
  const worker = {
    admit: () => Promise.reject(new Error("no Worker in this test")),
    uploadMedia: () => Promise.resolve(),
  } as unknown as WorkerClient;
  const spoolDir = mkdtempSync(join(tmpdir(), "strangers-"));
  const media = new MediaEngine(
    { portMin: 47_000, portMax: 47_099, bind: PEER, timeoutMs: 60_000, holdTimeoutMs: 60_000, spoolDir, publicAddress: PEER },
    worker,
    (line) => logs.push(line),
  );
  sockets.push({ close: () => media.stop() });
  const calls = new CallRegistry();
  const b2bua = new B2bua({
    worker,
    calls,
    reporter: { report: () => {} },
    bootId: "strangers-boot",
    media,
    whitelist,
    nodeId: "strangers",
    publicAddress: PEER,
    noAnswerSeconds: 30,
    callsPerSecondPerSource: 2,
    log: (line) => logs.push(line),
  });
  // A port free for both (below the ephemeral range): UDP on port 0, then TCP on the same number, raced
  // with any outgoing connection handed that port (EADDRINUSE).
  const port = await freeSipPort();
  const udp = await UdpTransport.bind(PEER, port);
  const tcp = await TcpTransport.bind(PEER, port, PEER, options.tcpLimits);
  const router = new CallRouter(calls, b2bua);
  const layer = new TransactionLayer(new TransportSet(udp, { tcp }), router, FAST, options.limits);
  router.attach(layer);
  b2bua.attach(layer);
  const node = { layer, port: udp.local.port, logs };
  nodes.push(node);
  return node;
}

let serial = 0;

function request(method: string, src: string, options: { toTag?: string; callId?: string } = {}): string {
  const id = `${Date.now()}-${++serial}`;
  return [
    `${method} sip:14155550123@${PEER} SIP/2.0`,
    `Via: SIP/2.0/UDP ${src}:5099;branch=z9hG4bK${method.toLowerCase()}${id}`,
    `From: <sip:14155550100@${src}>;tag=f${id}`,
    `To: <sip:14155550123@${PEER}>${options.toTag ? `;tag=${options.toTag}` : ""}`,
    `Call-ID: ${options.callId ?? `c${id}`}@${src}`,
    `CSeq: 1 ${method}`,
    "Max-Forwards: 70",
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");
}

/**
 * Sends datagrams from `src` and collects the replies: until `enough` holds of them (within 5 s), or,
 * given a number of milliseconds, for that long (a check that nothing comes back).
 */
async function sendUdp(node: Node, src: string, payloads: string[], enough: number | ((replies: string[]) => boolean)): Promise<string[]> {
  const socket = createSocket("udp4");
  const replies: string[] = [];
  socket.on("message", (m) => replies.push(m.toString()));
  await new Promise<void>((resolve) => socket.bind(0, src, resolve));
  for (const payload of payloads) socket.send(Buffer.from(payload), node.port, PEER);
  try {
    if (typeof enough === "number") await pause(enough);
    else await until(`replies to ${src}`, () => enough(replies), 5_000);
  } finally {
    socket.close();
  }
  return replies;
}

/** For sendUdp: at least `n` replies. */
const replies = (n: number) => (received: string[]) => received.length >= n;

/** A TCP connection from `src`: what it receives, and whether the node closed it. */
async function tcpFrom(node: Node, src: string): Promise<{ socket: Socket; received: string[]; closed: Promise<void> }> {
  const socket = connect({ host: PEER, port: node.port, localAddress: src });
  sockets.push({ close: () => socket.destroy() });
  const received: string[] = [];
  socket.on("data", (d) => received.push(d.toString()));
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  await new Promise<void>((resolve) => {
    socket.once("connect", () => resolve());
    socket.once("close", () => resolve());
  });
  return { socket, received, closed };
}

const statusOf = (reply: string) => Number(/^SIP\/2\.0 (\d{3})/.exec(reply)?.[1]);

describe("a stranger", () => {
  it("gets nothing for a CANCEL, an OPTIONS or any request, and leaves no transaction", async () => {
    const node = await startNode();
    const methods = ["CANCEL", "OPTIONS", "BYE", "INFO", "REGISTER", "SUBSCRIBE", "INVITE"];
    // Deliberate: a window in which no answer may come.
    const silence = await sendUdp(
      node,
      STRANGER,
      [...methods.map((m) => request(m, STRANGER)), request("BYE", STRANGER, { toTag: "x" })],
      150,
    );
    expect(silence).toEqual([]);
    expect(node.layer.transactionCounts).toEqual({ servers: 0, clients: 0 });
    // The same requests from the whitelisted peer are answered (and a CANCEL for nothing is 481).
    const answered = await sendUdp(node, PEER, [request("CANCEL", PEER), request("OPTIONS", PEER)], replies(2));
    expect(answered.map(statusOf).sort()).toEqual([200, 481]);
  });

  it("gets its TCP connection closed unread, and no keep-alive answer", async () => {
    const node = await startNode();
    const stranger = await tcpFrom(node, STRANGER);
    stranger.socket.write(`\r\n\r\n${request("OPTIONS", STRANGER)}`);
    await Promise.race([stranger.closed, pause(5_000)]);
    expect(stranger.socket.destroyed).toBe(true);
    expect(stranger.received).toEqual([]);
    expect(node.layer.transactionCounts).toEqual({ servers: 0, clients: 0 });
    // The peer's connection stays open and its keep-alive is answered.
    const peer = await tcpFrom(node, PEER);
    peer.socket.write("\r\n\r\n");
    await until("the keep-alive answered", () => peer.received.length > 0 || peer.socket.destroyed);
    expect(peer.socket.destroyed).toBe(false);
    expect(peer.received.join("")).toBe("\r\n");
  });
});

describe("caps", () => {
  it("answers 503 past the server transaction cap, statelessly", async () => {
    const node = await startNode({ limits: { servers: 2, clients: 10 } });
    const answers = await sendUdp(node, PEER, [request("OPTIONS", PEER), request("OPTIONS", PEER), request("OPTIONS", PEER)], replies(3));
    expect(answers.map(statusOf).sort()).toEqual([200, 200, 503]);
    expect(answers.find((r) => statusOf(r) === 503)).toMatch(/\r\nRetry-After: \d+\r\n/);
    expect(node.layer.transactionCounts.servers).toBe(2);
  });

  it("fails a request past the client transaction cap as a 503, sending nothing", async () => {
    const node = await startNode({ limits: { servers: 10, clients: 1 } });
    const far = createSocket("udp4");
    sockets.push(far);
    const heard: string[] = [];
    far.on("message", (m) => heard.push(m.toString()));
    await new Promise<void>((resolve) => far.bind(0, PEER, resolve));
    const to = { address: PEER, port: far.address().port, protocol: "udp" as const };
    const options = (n: number): SipRequest => ({
      kind: "request",
      method: "OPTIONS",
      uri: `sip:x@${PEER}`,
      version: "SIP/2.0",
      headers: [
        ["Via", `SIP/2.0/UDP ${PEER}:${node.port};branch=z9hG4bKcap${n}`],
        ["From", `<sip:n@${PEER}>;tag=${n}`],
        ["To", `<sip:x@${PEER}>`],
        ["Call-ID", `cap-${n}`],
        ["CSeq", "1 OPTIONS"],
      ],
      body: new Uint8Array(0),
    });
    node.layer.sendRequest(options(1), to, () => {});
    const second = await new Promise<number | null>((resolve) => node.layer.sendRequest(options(2), to, (r) => resolve(r?.status ?? null)));
    await pause(50); // deliberate: a window in which the refused request must not reach the far end
    expect(second).toBe(503);
    expect(heard.filter((m) => m.includes("cap-2"))).toEqual([]);
  });

  it("closes TCP connections past the global cap and past the per-source cap", async () => {
    const node = await startNode({ tcpLimits: { maxConnections: 3, maxPerSource: 2 } });
    const first = await tcpFrom(node, PEER);
    const second = await tcpFrom(node, PEER);
    const third = await tcpFrom(node, PEER);
    await Promise.race([third.closed, pause(5_000)]);
    expect([first.socket.destroyed, second.socket.destroyed, third.socket.destroyed]).toEqual([false, false, true]);
  });

  it("counts an IPv6 source by its /64 and an IPv4 one by its address", () => {
    expect(sourceKey("2001:db8:1:2::1")).toBe(sourceKey("2001:db8:1:2:ffff::9"));
    expect(sourceKey("2001:db8:1:2::1")).not.toBe(sourceKey("2001:db8:1:3::1"));
    expect(sourceKey("192.0.2.1")).not.toBe(sourceKey("192.0.2.2"));
    expect(sourceKey("::ffff:192.0.2.1")).toBe(sourceKey("192.0.2.1"));
  });
});

describe("unacknowledged INVITEs", () => {
  it("cost the source a second of budget each; while it owes, its INVITEs get silence", () => {
    const throttle = new SourceThrottle(10);
    const t0 = 1_000_000;
    expect(throttle.take("192.0.2.1", t0)).toBe("call");
    throttle.unacknowledged("192.0.2.1", t0);
    // Nine tokens left, less ten: silence for a second, then calls again.
    expect(throttle.take("192.0.2.1", t0 + 10)).toBe("silent");
    expect(throttle.take("192.0.2.1", t0 + 1_000)).toBe("call");
    // Another source is not touched; a plain burst past the budget is 503 (busy), not silence.
    for (let i = 0; i < 10; i++) expect(throttle.take("192.0.2.2", t0)).toBe("call");
    expect(throttle.take("192.0.2.2", t0)).toBe("busy");
  });

  it("through the node: INVITEs whose final responses are never ACKed silence their source for a while", async () => {
    const node = await startNode();
    // Two INVITEs (the source's budget is 2 a second) answered 503 (the Worker cannot be asked),
    // finals the source never ACKs: after Timer H each costs a further second of budget.
    // Until both are answered and Timer H (64 T1) has ended their transactions unacknowledged.
    const first = await sendUdp(
      node,
      PEER,
      [request("INVITE", PEER), request("INVITE", PEER)],
      (received) => received.filter((r) => statusOf(r) === 503).length >= 2 && node.layer.transactionCounts.servers === 0,
    );
    expect(first.filter((r) => statusOf(r) === 503).length).toBeGreaterThanOrEqual(2);
    // Deliberate: a window (well within the second owed) in which no answer may come.
    const later = await sendUdp(node, PEER, [request("INVITE", PEER)], 200);
    expect(later).toEqual([]);
    expect(node.layer.transactionCounts.servers).toBe(0);
    // A source that ACKs is not touched: OPTIONS and the like are answered all along.
    expect((await sendUdp(node, PEER, [request("OPTIONS", PEER)], replies(1))).map(statusOf)).toEqual([200]);
  });
});
