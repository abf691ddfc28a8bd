// Test calls the node places itself (sip-node/origination/), against a stand-in Worker over HTTP
// (fake-worker.ts) and sipp as the far end behind the destination: the admission of origin
// "test", the INVITE and its outcomes (answered after a digest challenge, busy, 503, no answer,
// cancelled while ringing, the far end hanging up), the announcement and sample as RTP the far end
// receives (sipp echoes it back, so the recording's callee side holds it), and what the Worker
// hears: the test call's progress, the call's events and its recording.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer as createTlsServer } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AdmissionTicket, AdmitResponse, DestinationTarget, EndedEvent, OriginateCommand } from "../../schema/node-api.ts";
import { parseWav } from "../../schema/wav.ts";
import { loadSipNodeConfig } from "../../sip-node/config.ts";
import { ALAW_TO_PCM, ULAW_TO_PCM } from "../../sip-node/media/g711.ts";
import { readPcap } from "../../sip-node/media/pcap.ts";
import { startSipNode, type SipNode } from "../../sip-node/node.ts";
import { StreamFramer } from "../../sip-node/sip/framer.ts";
import { header, setHeader } from "../../sip-node/sip/headers.ts";
import type { SipRequest } from "../../sip-node/sip/message.ts";
import { serializeMessage } from "../../sip-node/sip/serializer.ts";
import { responseTo } from "../../sip-node/sip/transactions.ts";
import { BYTES_PER_SECOND, sample } from "../../sip-node/origination/samples.ts";
import { startFakeWorker, type FakeWorker } from "./fake-worker.ts";
import { freeSipPort, freeUdpPort, uas } from "./harness.ts";
import { selfSignedCertificate } from "./certificates.ts";
import { startLocalPhone } from "../../scripts/lib/local-phone.mjs";

let worker: FakeWorker | null = null;
let node: SipNode | null = null;

afterEach(async () => {
  await node?.stop();
  await worker?.close();
  node = worker = null;
});

type Options = {
  grantedSeconds?: number;
  env?: Record<string, string>;
  destination?: Partial<DestinationTarget>;
  processing?: string;
  ticket?: Partial<AdmissionTicket>;
  admit?: (r: any) => AdmitResponse | undefined;
};

async function start(options: Options = {}) {
  const destinationPort = await freeUdpPort();
  const { env: _env, ...fake } = options;
  worker = await startFakeWorker({ sources: {}, destinationPort, ...fake });
  const base = 42_000 + (process.pid % 100) * 40;
  const config = loadSipNodeConfig({
    NODE_TOKEN: "t".repeat(32),
    WORKER_URL: worker.url,
    SIP_BIND: "127.0.0.1",
    SIP_PORT: String(await freeSipPort()),
    NODE_ID: "origin-node",
    RTP_TIMEOUT_SECONDS: "60",
    MEDIA_SPOOL_DIR: mkdtempSync(join(tmpdir(), "test-calls-")),
    RTP_PORT_MIN: String(base),
    RTP_PORT_MAX: String(base + 39),
    NODE_HEARTBEAT_SECONDS: "0.5",
    ...options.env,
  });
  node = await startSipNode(config, { whitelistPollMs: 60_000, monitorIntervalMs: 60_000 });
  return { destinationPort, w: worker };
}

const command = (extra: Partial<OriginateCommand> = {}): OriginateCommand => ({
  type: "originate",
  test_call_id: randomUUID(),
  sip_call_id: `${randomUUID()}@test-calls`,
  number: "14155550123",
  caller_id: "18005550100",
  seconds: 1,
  speech: "route_test",
  ring_timeout_seconds: 20,
  ...extra,
});

/** The statuses the node posted for a test call, in order. */
const statuses = (w: FakeWorker, id: string) => w.progress.filter((p) => p.test_call_id === id).map((p) => p.progress.status);
const final = (w: FakeWorker, id: string) =>
  w.progress.find((p) => p.test_call_id === id && ["done", "failed", "cancelled"].includes(p.progress.status))?.progress;
/** Waits for `n` more reports (heartbeats, every NODE_HEARTBEAT_SECONDS) to reach the Worker. */
async function heartbeats(w: FakeWorker, n: number) {
  const seen = w.reports.length;
  await w.until(() => w.reports.length >= seen + n);
}
const ended = (w: FakeWorker) => w.events().find((e) => e.event.type === "ended")?.event as EndedEvent | undefined;

/** Where `needle` starts in `haystack` (exact samples), or -1. */
function indexOfSamples(haystack: Int16Array, needle: Int16Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const linear = (ulaw: Uint8Array) => Int16Array.from(ulaw, (code) => ULAW_TO_PCM[code]!);

describe("a verification call the node places", () => {
  it("speaks the code to the platform's route with the signed account header, and reports, records and uploads nothing", async () => {
    const { destinationPort, w } = await start({ ticket: { call_record: false, account_assertion: "eyJhbGciOiJFZERTQSJ9.e30.c2ln" } });
    const heard: string[] = [];
    const invites: string[] = [];
    const phone = await startLocalPhone({ port: destinationPort, log: (line) => heard.push(line), onInvite: (m) => invites.push(m) });
    try {
      const asked = command({ speech: "verification_code", code: "407193", seconds: 8 });
      node!.originator.originate(asked);
      // The announcement (3.4 s), then the code for `seconds`.
      const done = await w.until(() => final(w, asked.test_call_id), 20_000);
      expect(done).toMatchObject({ status: "done", answered: true, call_id: null });
      expect(w.progress.filter((p) => p.test_call_id === asked.test_call_id).every((p) => !p.progress.call_id)).toBe(true);
      expect(heard).toEqual(["[local phone] 14155550123 answered a verification call and heard the code 407193"]);
      expect(invites[0]).toContain("\r\nX-Call-Shield-Account: eyJhbGciOiJFZERTQSJ9.e30.c2ln\r\n");
      // Two more heartbeats (every 0.5 s) go by: the call is never named to the ledger, live or ended, and nothing is uploaded.
      await heartbeats(w, 2);
      expect(w.events()).toEqual([]);
      expect(w.reports.flatMap((r) => r.live ?? [])).toEqual([]);
      expect(w.uploads).toEqual([]);
    } finally {
      await phone.stop();
    }
  });
});

describe("a test call the node places", () => {
  it("answers a digest challenge, plays the announcement then the sample for `seconds` as RTP the far end receives, and reports it all", async () => {
    const { destinationPort, w } = await start({
      destination: { auth: { username: "trunk7", password: "digest-pass-7", realm: null } },
      processing: "full",
    });
    // sipp echoes every RTP packet it receives: the recording's callee side is what reached it.
    const far = uas("uas-challenge-401.xml", destinationPort, false, {}, 1, ["-rtp_echo"]);
    await far.listening;
    const asked = command({ seconds: 2 });
    expect(node!.originator.originate(asked)).toEqual({ accepted: true, test_call_id: asked.test_call_id });

    const far_ = await far;
    expect(far_.code, far_.output).toBe(0);
    const done = await w.until(() => final(w, asked.test_call_id));
    const announcement = sample("announcement");
    const expectedSeconds = announcement.length / BYTES_PER_SECOND + asked.seconds;
    expect(done).toMatchObject({ status: "done", answered: true, sip_code: 200, ended_by: "platform", node_id: "origin-node" });
    expect(done.talk_seconds).toBeGreaterThanOrEqual(expectedSeconds - 0.1);
    expect(done.talk_seconds).toBeLessThan(expectedSeconds + 1);
    expect(statuses(w, asked.test_call_id)).toEqual(["dialing", "answered", "done"]);

    // Admitted as a test call from the node's own address, under the Worker's Call-ID.
    expect(w.admissions[0]).toMatchObject({
      origin: "test",
      test_call_id: asked.test_call_id,
      sip_call_id: asked.sip_call_id,
      src_ip: "127.0.0.1",
      ani: asked.caller_id,
      dialed: asked.number,
      boot_id: node!.bootId,
    });
    const ticket = w.tickets[0]!;
    expect(done.call_id).toBe(ticket.call_id);

    // The call's events as a B2BUA call's: answered, then ended (with the media's quality), for the ledger to charge.
    const end = await w.until(() => ended(w));
    expect(w.events().map((e) => [e.call_id, e.event.type])).toEqual([
      [ticket.call_id, "answered"],
      [ticket.call_id, "ended"],
    ]);
    expect(end).toMatchObject({ sip_code: 200, hangup_by: "platform", end_reason: "test_call_done", codec: "PCMU" });
    expect(end.qos!.caller.packets).toBeGreaterThanOrEqual(Math.floor(expectedSeconds * 50) - 2);
    expect(end.qos!.callee.packets).toBeGreaterThan(expectedSeconds * 50 * 0.9);
    expect(end.ladder!.map((m) => m.method)).toEqual(expect.arrayContaining(["INVITE", "ACK", "BYE"]));

    // The recording is uploaded like any call's: our voice on the left, what the far end received (echoed) on the right.
    const path = await w.until(() => w.uploads.find((u) => u.includes(`/calls/${ticket.call_id}/media/recording.wav`)));
    expect(path).toContain(`customer_id=${ticket.customer_id}`);
    const audio = parseWav(new Uint8Array(w.uploaded.get(path)!));
    const right = audio.samples.filter((_, i) => i % 2 === 1);
    const left = audio.samples.filter((_, i) => i % 2 === 0);
    const announced = linear(announcement.subarray(8_000, 10_000));
    const spoken = linear(sample("route_test").subarray(4_000, 6_000));
    expect(indexOfSamples(left, announced)).toBeGreaterThanOrEqual(0);
    expect(indexOfSamples(right, announced)).toBeGreaterThanOrEqual(0);
    expect(indexOfSamples(right, spoken)).toBeGreaterThan(indexOfSamples(right, announced));
    await w.until(() => w.uploads.some((u) => u.includes(`/calls/${ticket.call_id}/media/callee.pcap`)));
    // And its SIP log, every message of the dialog as it crossed the wire.
    const log = await w.until(() => w.uploads.find((u) => u.includes(`/calls/${ticket.call_id}/media/sip-log.jsonl`)));
    const lines = w.uploaded
      .get(log)!
      .toString("utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.first_line.split(" ")[l.direction === "out" ? 0 : 1])).toEqual(
      expect.arrayContaining(["INVITE", "401", "200", "ACK", "BYE"]),
    );
  });

  it("ends when the far end hangs up first (ended by the callee), speaking A-law when that is what it answered", async () => {
    const { destinationPort, w } = await start();
    const far = uas("uas-bye.xml", destinationPort);
    await far.listening;
    const asked = command({ seconds: 5 });
    node!.originator.originate(asked);
    expect((await far).code).toBe(0);
    const done = await w.until(() => final(w, asked.test_call_id));
    expect(done).toMatchObject({ status: "done", answered: true, ended_by: "callee" });
    expect(done.talk_seconds).toBeLessThan(2);
    expect(await w.until(() => ended(w))).toMatchObject({ sip_code: 200, hangup_by: "callee", codec: "PCMA" });
  });

  it("reaches a TCP destination, and hears its BYE on the same connection", async () => {
    const { destinationPort, w } = await start({ destination: { transport: "tcp" } });
    const far = uas("uas-bye.xml", destinationPort, true);
    await far.listening;
    const asked = command({ seconds: 5 });
    node!.originator.originate(asked);
    expect((await far).code).toBe(0);
    expect(await w.until(() => final(w, asked.test_call_id))).toMatchObject({ status: "done", ended_by: "callee" });
    expect((await w.until(() => ended(w))).ladder![0]).toMatchObject({
      method: "INVITE",
      first_line: expect.stringContaining("INVITE sip:14155550123@127.0.0.1:"),
    });
  });

  it("reaches a TLS destination whose certificate the node trusts", async () => {
    // sipp here has no TLS: the destination is a small TLS UAS with a certificate made for this run.
    const { key, cert } = selfSignedCertificate("test-call-tls");
    const seen: SipRequest[] = [];
    const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (socket) => {
      const framer = new StreamFramer();
      socket.on("error", () => {});
      socket.on("data", (chunk: Buffer) => {
        for (const message of framer.push(chunk)) {
          if (message.kind !== "request") continue;
          seen.push(message);
          if (message.method === "INVITE") {
            const ok = responseTo(message, 200, "OK", "tlsuas");
            setHeader(ok.headers, "Contact", `<sip:127.0.0.1:${port};transport=tls>`);
            setHeader(ok.headers, "Content-Type", "application/sdp");
            ok.body = new TextEncoder().encode(
              "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\n",
            );
            socket.write(serializeMessage(ok));
          } else if (message.method === "BYE") socket.write(serializeMessage(responseTo(message, 200, "OK")));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const { w } = await start({ destination: { transport: "tls", port }, env: { SIP_TLS_CA_FILE: cert } });
      const asked = command({ seconds: 1 });
      node!.originator.originate(asked);
      expect(await w.until(() => final(w, asked.test_call_id))).toMatchObject({ status: "done", ended_by: "platform" });
      await w.until(() => seen.length === 3);
      expect(seen.map((r) => r.method)).toEqual(["INVITE", "ACK", "BYE"]);
      expect(header(seen[0]!, "Via")).toMatch(/^SIP\/2\.0\/TLS /);
      expect(header(seen[0]!, "Contact")).toMatch(/;transport=tls>$/);
    } finally {
      server.close();
    }
  });

  it("is named in the node's heartbeats while up, and a drain ends it and refuses new ones", async () => {
    const { destinationPort, w } = await start();
    const far = uas("uas-hungup.xml", destinationPort);
    await far.listening;
    const asked = command({ seconds: 60 });
    node!.originator.originate(asked);
    const ticket = await w.until(() => statuses(w, asked.test_call_id).includes("answered") && w.tickets[0]);
    await w.until(() => w.reports.some((r) => r.live?.some((c) => c.call_id === ticket.call_id)));
    const draining = node!.drain(0.3);
    // drain() stops taking calls before it returns.
    expect(() => node!.originator.originate(command())).toThrow(/draining/);
    await draining;
    node = null;
    expect((await far).code).toBe(0);
    expect(final(w, asked.test_call_id)).toMatchObject({ status: "failed", answered: true, error: "node_drain", ended_by: "platform" });
    expect(ended(w)).toMatchObject({ end_reason: "node_drain", hangup_by: "platform", sip_code: 200 });
  });

  it("voice-agent mode: bridges the answered number to the voice-AI destination, which is told the test call and the instruction", async () => {
    const agentPort = await freeUdpPort();
    const agent: DestinationTarget = {
      id: randomUUID(),
      host: "127.0.0.1",
      port: agentPort,
      transport: "udp",
      kind: "voice_ai",
      provider: null,
      agent_id: "agent-7",
      tech_prefix: null,
      auth: null,
    };
    const { destinationPort, w } = await start({ processing: "full", ticket: { agent_destination: agent } });
    // The agent speaks (sipp's A-law speech); the number echoes what reaches it.
    const speech = "/usr/share/sip-tester/g711a.pcap";
    const talking = uas("uas-media.xml", agentPort, false, { AUDIO: speech });
    const number = uas("uas-hungup-pcma.xml", destinationPort, false, {}, 1, ["-rtp_echo"]);
    await Promise.all([talking.listening, number.listening]);
    const asked = command({ seconds: 3, agent_destination_id: agent.id, instruction: "Ask whether the route sounds clear." });
    node!.originator.originate(asked);
    expect((await number).code).toBe(0);
    expect((await talking).code).toBe(0);
    const done = await w.until(() => final(w, asked.test_call_id));
    expect(done).toMatchObject({ status: "done", answered: true, ended_by: "platform" });
    expect(done.talk_seconds).toBeGreaterThanOrEqual(2.9);
    expect(done.talk_seconds).toBeLessThan(4);

    const ticket = w.tickets[0]!;
    const path = await w.until(() => w.uploads.find((u) => u.includes(`/calls/${ticket.call_id}/media/recording.wav`)));
    const audio = parseWav(new Uint8Array(w.uploaded.get(path)!));
    const spoken = Int16Array.from(
      readPcap(readFileSync(speech)).flatMap((p) => [...p.payload.subarray(12)].map((b) => ALAW_TO_PCM[b]!)),
    ).subarray(4_000, 5_000);
    // The agent on the left; on the right what the number received from it (echoed back).
    expect(
      indexOfSamples(
        audio.samples.filter((_, i) => i % 2 === 0),
        spoken,
      ),
    ).toBeGreaterThanOrEqual(0);
    expect(
      indexOfSamples(
        audio.samples.filter((_, i) => i % 2 === 1),
        spoken,
      ),
    ).toBeGreaterThanOrEqual(0);
    // The agent's INVITE, in the call's SIP log, names the agent, the test call and the instruction.
    const log = await w.until(() => w.uploads.find((u) => u.includes(`/calls/${ticket.call_id}/media/sip-log.jsonl`)));
    const invites = w.uploaded
      .get(log)!
      .toString("utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((l) => l.direction === "out" && l.method === "INVITE");
    expect(invites.map((l) => l.first_line)).toEqual([
      expect.stringContaining("INVITE sip:14155550123@127.0.0.1:"),
      expect.stringContaining(`INVITE sip:agent-7@127.0.0.1:${agentPort}`),
    ]);
    expect(invites[1].raw).toContain(`X-Call-Shield-Test-Call: ${asked.test_call_id}`);
    expect(invites[1].raw).toContain("X-Call-Shield-Instruction: Ask whether the route sounds clear.");
  });

  it("is cut at the talk time the credit covers, as any call (credit_exhausted)", async () => {
    const { destinationPort, w } = await start({ grantedSeconds: 1 });
    const far = uas("uas-hungup.xml", destinationPort);
    await far.listening;
    const asked = command({ seconds: 30 });
    node!.originator.originate(asked);
    expect((await far).code).toBe(0);
    const cut = await w.until(() => final(w, asked.test_call_id));
    expect(cut).toMatchObject({ status: "failed", answered: true, error: "credit_exhausted", ended_by: "platform" });
    expect(cut.talk_seconds).toBeGreaterThanOrEqual(0.9);
    expect(cut.talk_seconds).toBeLessThan(2);
    expect(await w.until(() => ended(w))).toMatchObject({ end_reason: "credit_exhausted", sip_code: 200 });
  });

  it.each([
    [486, "Busy Here"],
    [503, "Service Unavailable"],
  ])("fails with the far end's %i and its reason", async (code, reason) => {
    const { destinationPort, w } = await start();
    const far = uas("uas-reject.xml", destinationPort, false, { CODE: String(code), REASON: reason });
    await far.listening;
    const asked = command();
    node!.originator.originate(asked);
    expect((await far).code).toBe(0);
    const failed = await w.until(() => final(w, asked.test_call_id));
    expect(failed).toMatchObject({
      status: "failed",
      answered: false,
      sip_code: code,
      sip_reason: reason,
      ended_by: "callee",
      talk_seconds: null,
    });
    expect(await w.until(() => ended(w))).toMatchObject({ sip_code: code, answered_at: null, hangup_by: "callee" });
  });

  it("sends CANCEL when nobody answers within the ring timeout, and fails (408, ended by timeout)", async () => {
    const { destinationPort, w } = await start();
    const far = uas("uas-ring.xml", destinationPort);
    await far.listening;
    const asked = command({ ring_timeout_seconds: 1 });
    node!.originator.originate(asked);
    // The scenario passes only once it has received the CANCEL.
    expect((await far).code).toBe(0);
    const failed = await w.until(() => final(w, asked.test_call_id));
    expect(statuses(w, asked.test_call_id)).toEqual(["dialing", "ringing", "failed"]);
    expect(failed).toMatchObject({ sip_code: 408, ended_by: "timeout", answered: false, error: "no_answer" });
    expect(await w.until(() => ended(w))).toMatchObject({ sip_code: 408, end_reason: "no_answer", hangup_by: "platform" });
  });

  it("is withdrawn by cancel_test_call while ringing: CANCEL, cancelled", async () => {
    const { destinationPort, w } = await start();
    const far = uas("uas-ring.xml", destinationPort);
    await far.listening;
    const asked = command();
    node!.originator.originate(asked);
    await w.until(() => statuses(w, asked.test_call_id).includes("ringing"));
    expect(node!.originator.cancel(asked.test_call_id)).toBe(true);
    expect((await far).code).toBe(0);
    expect(await w.until(() => final(w, asked.test_call_id))).toMatchObject({ status: "cancelled", ended_by: "cancel", answered: false });
    expect(await w.until(() => ended(w))).toMatchObject({ sip_code: 487, end_reason: "cancelled" });
    expect(node!.originator.cancel(asked.test_call_id)).toBe(false);
  });

  it("fails with the Worker's refusal and places no INVITE", async () => {
    const { w } = await start({ admit: () => ({ decision: "reject", sip_code: 402, reason: "insufficient_balance", call_id: null }) });
    const asked = command();
    node!.originator.originate(asked);
    expect(await w.until(() => final(w, asked.test_call_id))).toMatchObject({
      status: "failed",
      sip_code: 402,
      sip_reason: "insufficient_balance",
    });
    expect(node!.originator.activeCalls).toBe(0);
    // A heartbeat (every 0.5 s) goes by, carrying any event the node had: none.
    await heartbeats(w, 1);
    expect(w.events()).toEqual([]);
  });
});
