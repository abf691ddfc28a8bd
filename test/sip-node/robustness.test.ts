// RFC 4475 torture messages and floods sent at a running node: it keeps serving calls, answers
// invalid requests from its peers with 400 where a response is possible, and tells strangers nothing.
import { readdirSync, readFileSync } from "node:fs";
import { createSocket } from "node:dgram";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeUdpPort, openAccount, sendRaw, startStack, syncLedger, uac, uas, until, type Stack, type TestAccount } from "./harness.ts";

const torture = new URL("./testdata/rfc4475/", import.meta.url);
const files = readdirSync(torture).filter((f) => f.endsWith(".dat"));

const BURST_LIMIT = 20;
let stack: Stack;
let peer: TestAccount;
let noisy: TestAccount;
let port: number;

beforeAll(async () => {
  stack = await startStack({ CALLS_PER_SECOND_PER_SOURCE: String(BURST_LIMIT) });
  port = await freeUdpPort();
  peer = await openAccount(stack, port);
  // The torture messages come from another whitelisted account: its valid INVITEs are real
  // calls (to a destination that never answers), so it gets ports enough for all of them.
  noisy = await openAccount(stack, await freeUdpPort());
  await stack.sql(`UPDATE customers SET ports_override = 500 WHERE id = '${noisy.id}'`);
  await syncLedger(noisy);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function callStillConnects() {
  const callee = uas("uas.xml", port);
  await callee.listening;
  const caller = await uac(stack, peer.src, "uac.xml");
  expect(caller.code, caller.output).toBe(0);
  expect((await callee).code).toBe(0);
}

describe("RFC 4475 torture messages", () => {
  it("leave the node serving calls, whoever sends them", async () => {
    for (const file of files) {
      const text = readFileSync(new URL(file, torture), "latin1");
      // From a whitelisted peer and from a stranger alike.
      await Promise.all([sendRaw(stack, noisy.src, text, 150), sendRaw(stack, "127.0.0.251", text, 150)]);
    }
    await callStillConnects();
  }, 60_000);

  it("answers an invalid request from a peer with 400, and a stranger's with nothing", async () => {
    const missingCallId = [
      "OPTIONS sip:probe@127.0.0.1 SIP/2.0",
      `Via: SIP/2.0/UDP ${"{src}"}:5099;branch=z9hG4bKbadreq1`,
      "From: <sip:probe@example.test>;tag=x",
      "To: <sip:probe@127.0.0.1>",
      "CSeq: 1 OPTIONS",
      "Max-Forwards: 70",
      "Content-Length: 0",
      "",
      "",
    ].join("\n");
    const fromPeer = await sendRaw(stack, noisy.src, missingCallId.replace("{src}", noisy.src));
    expect(fromPeer).toHaveLength(1);
    expect(fromPeer[0]).toMatch(/^SIP\/2\.0 400 /);
    expect(await sendRaw(stack, "127.0.0.252", missingCallId.replace("{src}", "127.0.0.252"))).toEqual([]);
  });

  it("bounds new calls from one source: past its rate they get 503 with Retry-After, never an admission", async () => {
    const flooder = await openAccount(stack, await freeUdpPort());
    await stack.sql(`UPDATE customers SET ports_override = 500 WHERE id = '${flooder.id}'`);
    await syncLedger(flooder);
    const burst = await inviteBurst(flooder.src, 60);
    const trying = burst.filter((r) => r.startsWith("SIP/2.0 100 "));
    const refused = burst.filter((r) => r.startsWith("SIP/2.0 503 "));
    expect(trying.length).toBeGreaterThanOrEqual(BURST_LIMIT);
    // The bucket refills as the node works through the burst: allow it half a second of that.
    expect(trying.length).toBeLessThanOrEqual(BURST_LIMIT * 1.5);
    expect(refused.length).toBe(60 - trying.length);
    expect(refused[0]).toMatch(/\r\nRetry-After: 1\r\n/);
    // Only the calls let through reached the Worker's admission (and were recorded, through the ledger's queue).
    let recorded = 0;
    for (let i = 0; i < 30 && recorded < trying.length; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      recorded = (await flooder.call("/api/calls?limit=1")).total;
    }
    expect(recorded).toBe(trying.length);
    // A second later the source may call again (deliberate: its bucket refills).
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await inviteBurst(flooder.src, 1)).filter((r) => r.startsWith("SIP/2.0 100 "))).toHaveLength(1);
  }, 60_000);

  it("shrugs off a flood of oversized datagrams", async () => {
    const huge = `INVITE sip:x@127.0.0.1 SIP/2.0\nVia: SIP/2.0/UDP 127.0.0.253;branch=z9hG4bKflood\nX-Junk: ${"a".repeat(60_000)}\n\n`;
    await Promise.all(Array.from({ length: 50 }, () => sendRaw(stack, "127.0.0.253", huge, 50)));
    await callStillConnects();
  }, 60_000);

  it("closes a TCP stream whose header never ends, and keeps serving", async () => {
    const socket = connect({ host: "127.0.0.1", port: stack.node.port });
    const closed = new Promise<boolean>((resolve) => {
      socket.on("close", () => resolve(true));
      setTimeout(() => resolve(false), 5_000);
    });
    socket.on("error", () => {});
    socket.write(`INVITE sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP ${noisy.src};branch=z9hG4bKendless\r\nX-Endless: `);
    for (let i = 0; i < 20 && !socket.destroyed; i++) socket.write("a".repeat(8_192));
    expect(await closed).toBe(true);
    await callStillConnects();
  }, 60_000);
});

function firstAnswers(replies: string[]): string[] {
  const byCall = new Map<string, string>();
  for (const reply of replies) {
    const callId = /\r\nCall-ID: *([^\r]+)/i.exec(reply)?.[1];
    if (callId && !byCall.has(callId) && /^SIP\/2\.0 (100|503) /.test(reply)) byCall.set(callId, reply);
  }
  return [...byCall.values()];
}

/** `count` INVITEs at once from `src`, each its own call; the first response line of each answer. */
function inviteBurst(src: string, count: number): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = createSocket("udp4");
    const replies: string[] = [];
    socket.on("message", (m) => replies.push(m.toString()));
    socket.bind(0, src, () => {
      const local = socket.address().port;
      for (let i = 0; i < count; i++) {
        const id = `${Date.now()}-${i}`;
        const invite = [
          "INVITE sip:14155550123@127.0.0.1 SIP/2.0",
          `Via: SIP/2.0/UDP ${src}:${local};branch=z9hG4bKburst${id}`,
          `From: <sip:14155550100@${src}>;tag=b${id}`,
          "To: <sip:14155550123@127.0.0.1>",
          `Call-ID: burst-${id}@${src}`,
          "CSeq: 1 INVITE",
          `Contact: <sip:14155550100@${src}:${local}>`,
          "Max-Forwards: 70",
          "Content-Length: 0",
          "",
          "",
        ].join("\r\n");
        socket.send(Buffer.from(invite), stack.node.port, "127.0.0.1");
      }
      // One answer per call (a 503 is retransmitted until ACKed, which this sender never does);
      // later answers (480 after the no-answer timeout) are left out. Every call answered, or 10 s.
      void until("an answer to every INVITE", () => firstAnswers(replies).length >= count, 10_000)
        .catch(() => {})
        .then(() => socket.close(() => resolve(firstAnswers(replies))));
    });
  });
}
