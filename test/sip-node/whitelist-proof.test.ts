// Proof of control of a whitelisted range (issue 20, finding 4), the node's part: an OPTIONS from
// an address inside a range awaiting proof is answered 200 with the range's code in
// X-Call-Shield-Proof, which only a party receiving at that address reads; such an address gets
// nothing else (an INVITE is silence), and a stranger gets nothing at all. A B2BUA on real UDP
// sockets on loopback: 127.0.0.1 whitelisted (and inside a wider range awaiting proof), 127.0.0.3
// only claimed (awaiting proof), 127.0.0.2 a stranger.
import { createSocket } from "node:dgram";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCidr, type Cidr } from "../../schema/cidr.ts";
import { B2bua } from "../../sip-node/b2bua/b2bua.ts";
import { CallRouter } from "../../sip-node/calls/call-router.ts";
import { CallRegistry } from "../../sip-node/calls/registry.ts";
import { WhitelistFilter } from "../../sip-node/control/whitelist.ts";
import type { WorkerClient } from "../../sip-node/control/worker-client.ts";
import { MediaEngine } from "../../sip-node/media/engine.ts";
import { TcpTransport } from "../../sip-node/sip/tcp-transport.ts";
import { TransactionLayer, type TimerValues } from "../../sip-node/sip/transactions.ts";
import { TransportSet, UdpTransport } from "../../sip-node/sip/transport.ts";
import { freeSipPort, pause, until } from "./harness.ts";

const NODE = "127.0.0.1";
const CLAIMED = "127.0.0.3";
const STRANGER = "127.0.0.2";
const FAST: TimerValues = { T1: 20, T2: 160, T4: 200 };
const cidr = (text: string) => parseCidr(text) as Cidr;

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function startNode(): Promise<number> {
  const whitelist = new WhitelistFilter();
  const peer = cidr(`${NODE}/32`);
  const claimed = cidr(`${CLAIMED}/32`);
  const wide = cidr("127.0.0.0/31");
  whitelist.replace(
    1,
    [{ start: peer.start, end: peer.end }],
    [
      { start: claimed.start, end: claimed.end, code: "CLAIMEDCODE00001" },
      { start: wide.start, end: wide.end, code: "WIDECODE00000002" },
    ],
  );
  const worker = {
    admit: () => Promise.reject(new Error("no Worker in this test")),
    uploadMedia: () => Promise.resolve(),
  } as unknown as WorkerClient;
  const media = new MediaEngine(
    {
      portMin: 47_200,
      portMax: 47_299,
      bind: NODE,
      timeoutMs: 60_000,
      holdTimeoutMs: 60_000,
      spoolDir: mkdtempSync(join(tmpdir(), "proof-")),
      publicAddress: NODE,
    },
    worker,
    () => {},
  );
  closers.push(() => media.stop());
  const calls = new CallRegistry();
  const b2bua = new B2bua({
    worker,
    calls,
    reporter: { report: () => {} },
    bootId: "proof-boot",
    media,
    whitelist,
    nodeId: "proof",
    publicAddress: NODE,
    noAnswerSeconds: 30,
    callsPerSecondPerSource: 2,
    log: () => {},
  });
  // A port free for both (below the ephemeral range): UDP on port 0, then TCP on the same number, raced
  // with any outgoing connection handed that port (EADDRINUSE).
  const port = await freeSipPort();
  const udp = await UdpTransport.bind(NODE, port);
  const tcp = await TcpTransport.bind(NODE, port, NODE);
  const router = new CallRouter(calls, b2bua);
  const layer = new TransactionLayer(new TransportSet(udp, { tcp }), router, FAST);
  router.attach(layer);
  b2bua.attach(layer);
  closers.push(() => layer.close());
  return udp.local.port;
}

let serial = 0;
function request(method: string, src: string): string {
  const id = `${Date.now()}-${++serial}`;
  return [
    `${method} sip:ping@${NODE} SIP/2.0`,
    `Via: SIP/2.0/UDP ${src}:5099;branch=z9hG4bK${method.toLowerCase()}${id}`,
    `From: <sip:noc@${src}>;tag=f${id}`,
    `To: <sip:ping@${NODE}>`,
    `Call-ID: proof-${id}@${src}`,
    `CSeq: 1 ${method}`,
    "Max-Forwards: 70",
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");
}

/** Sends `payload` from `src`: the answer once it came (within 5 s), or, with `answered` false, whatever came in 150 ms (nothing, it should). */
async function sendFrom(src: string, port: number, payload: string, answered = false): Promise<string[]> {
  const socket = createSocket("udp4");
  const replies: string[] = [];
  socket.on("message", (m) => replies.push(m.toString()));
  await new Promise<void>((resolve) => socket.bind(0, src, resolve));
  socket.send(Buffer.from(payload), port, NODE);
  try {
    if (answered) await until(`an answer to ${src}`, () => replies.length > 0, 5_000);
    else await pause(150); // deliberate: a window in which no answer may come
  } finally {
    socket.close();
  }
  return replies;
}

const proofHeader = (reply: string) => /^X-Call-Shield-Proof: (.*)$/im.exec(reply)?.[1]?.trim();

describe("proof of control on the node", () => {
  it("answers an OPTIONS from a claimed range with its codes, and nothing else from it", async () => {
    const port = await startNode();
    const [answer] = await sendFrom(CLAIMED, port, request("OPTIONS", CLAIMED), true);
    expect(answer).toMatch(/^SIP\/2\.0 200 /);
    expect(proofHeader(answer!)).toBe("CLAIMEDCODE00001");
    expect(await sendFrom(CLAIMED, port, request("INVITE", CLAIMED))).toEqual([]);
    expect(await sendFrom(CLAIMED, port, request("BYE", CLAIMED))).toEqual([]);
  });

  it("adds the code of a wider range awaiting proof to a whitelisted peer's answer", async () => {
    const port = await startNode();
    const [answer] = await sendFrom(NODE, port, request("OPTIONS", NODE), true);
    expect(answer).toMatch(/^SIP\/2\.0 200 /);
    expect(proofHeader(answer!)).toBe("WIDECODE00000002");
  });

  it("tells a stranger nothing, code or otherwise", async () => {
    const port = await startNode();
    expect(await sendFrom(STRANGER, port, request("OPTIONS", STRANGER))).toEqual([]);
  });
});
