// The hosted-number listener (sip-node/cli/, CLI checks of issue 31) with sipp as the route that
// delivers a check's call, against a stand-in Worker (fake-worker.ts) that answers the arrivals:
// a held number answered (the caller ID fields as they arrived, the tone played, our BYE, the end
// posted with the RTP the listener heard), a number not held refused 404 (over TCP), the Worker
// failing (503), the caller's CANCEL before the answer (487) and its BYE before the tone ends; and
// the tone itself as a caller of raw sockets hears it (only once its own RTP has come); and a test
// call the node places to its own listener, as a CLI check does, with its answer delay and MOS.
import { randomUUID } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSipNodeConfig } from "../../sip-node/config.ts";
import { ALAW_TO_PCM, encodeAlaw } from "../../sip-node/media/g711.ts";
import { writePcapFile } from "../../sip-node/media/pcap.ts";
import { startSipNode, type SipNode } from "../../sip-node/node.ts";
import type { OriginateCommand } from "../../schema/node-api.ts";
import { startFakeWorker, type FakeWorker } from "./fake-worker.ts";
import { freeSipPort, freeUdpPort, pause, sendRaw, sipp, uac, until, type Stack } from "./harness.ts";

const work = mkdtempSync(join(tmpdir(), "cli-listener-"));
let worker: FakeWorker;
let node: SipNode;
/** The listener as harness.ts's uac and sendRaw address a node. */
let listener: Stack;

beforeAll(async () => {
  // The listener's port is also the destination of the test calls the node places (the CLI check's own loop).
  const cliPort = await freeSipPort();
  worker = await startFakeWorker({ sources: {}, destinationPort: cliPort });
  const base = 44_000 + (process.pid % 100) * 40;
  const config = loadSipNodeConfig({
    NODE_TOKEN: "t".repeat(32),
    WORKER_URL: worker.url,
    SIP_BIND: "127.0.0.1",
    SIP_PORT: String(await freeSipPort()),
    CLI_LISTEN_PORT: String(cliPort),
    NODE_ID: "cli-node",
    MEDIA_SPOOL_DIR: join(work, "spool"),
    RTP_PORT_MIN: String(base),
    RTP_PORT_MAX: String(base + 39),
  });
  node = await startSipNode(config, { whitelistPollMs: 60_000, monitorIntervalMs: 60_000 });
  listener = { node: { port: node.cli!.port } } as Stack;
}, 60_000);

afterAll(async () => {
  await node?.stop();
  await worker?.close();
});

/** A 1 kHz PCMA tone of `seconds`, 20 ms a packet, as a pcap sipp can play. */
function tonePcap(seconds: number): string {
  const records = [];
  for (let n = 0; n < seconds * 50; n++) {
    const rtp = new Uint8Array(12 + 160);
    rtp.set([0x80, 8, (n >> 8) & 0xff, n & 0xff]);
    new DataView(rtp.buffer).setUint32(4, n * 160);
    new DataView(rtp.buffer).setUint32(8, 0x11c11c);
    for (let i = 0; i < 160; i++) rtp[12 + i] = encodeAlaw(Math.round(8000 * Math.sin((2 * Math.PI * (n * 160 + i)) / 8)));
    records.push({
      timeMs: 1_700_000_000_000 + n * 20,
      src: { address: "10.0.0.2", port: 4000 },
      dst: { address: "10.0.0.1", port: 5000 },
      payload: rtp,
    });
  }
  const path = join(work, `tone-${seconds}s.pcap`);
  writePcapFile(path, records);
  return path;
}

const INVITE = (extra: string, sdp: boolean) => `
      INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: "Route Test" <sip:14155550100@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: sip:14155550100@[local_ip]:[local_port]
      Max-Forwards: 70${extra}
      ${sdp ? "Content-Type: application/sdp\n      " : ""}Content-Length: [len]
${
  sdp
    ? `
      v=0
      o=user1 53655765 2353687637 IN IP[local_ip_type] [local_ip]
      s=-
      c=IN IP[media_ip_type] [media_ip]
      t=0 0
      m=audio [media_port] RTP/AVP 8 101
      a=rtpmap:8 PCMA/8000
      a=rtpmap:101 telephone-event/8000
      a=sendrecv`
    : ""
}`;

const IN_DIALOG = (method: string, cseq: number) => `
      ${method} sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: "Route Test" <sip:14155550100@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: ${cseq} ${method}
      Max-Forwards: 70
      Content-Length: 0`;

/** The caller ID as a route might deliver it: From, two P-Asserted-Identity values, Privacy and an Identity header. */
const CALLER_ID_HEADERS = `
      P-Asserted-Identity: <sip:+14155550100@carrier.test>, <tel:+14155550199>
      Privacy: id;Critical
      Identity: eyJhbGciOiJFUzI1NiJ9.eyJ0ZXN0Ijp0cnVlfQ.c2lnbmF0dXJl;info=<https://cert.example/shaken.pem>;alg=ES256;ppt=shaken`;

/** Answered: sends its audio, and waits for the listener's BYE after the tone. */
const ANSWERED = `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="cli check delivered">
  <send retrans="500"><![CDATA[${INVITE(CALLER_ID_HEADERS, true)}
  ]]></send>
  <recv response="100" optional="true"/>
  <recv response="200" rtd="true"/>
  <send><![CDATA[${IN_DIALOG("ACK", 1)}
  ]]></send>
  <nop><action><exec play_pcap_audio="__AUDIO__"/></action></nop>
  <recv request="BYE"/>
  <send><![CDATA[
      SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      [last_CSeq:]
      Content-Length: 0
  ]]></send>
</scenario>`;

/** The caller gives up while the Worker is asked: CANCEL, 200 for it, 487 for the INVITE, ACK. */
const CANCELLED = `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="cli check cancelled">
  <send retrans="500"><![CDATA[${INVITE("", true)}
  ]]></send>
  <recv response="100"/>
  <pause milliseconds="300"/>
  <send><![CDATA[
      CANCEL sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      [last_Via:]
      From: "Route Test" <sip:14155550100@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>
      Call-ID: [call_id]
      CSeq: 1 CANCEL
      Max-Forwards: 70
      Content-Length: 0
  ]]></send>
  <recv response="200"/>
  <recv response="487"/>
  <send><![CDATA[${IN_DIALOG("ACK", 1)}
  ]]></send>
</scenario>`;

/** Runs `xml` (its placeholders filled) as one sipp call to the listener, dialling `dialled`. */
async function call(xml: string, dialled: string, fill: Record<string, string> = {}) {
  let text = xml;
  for (const [key, value] of Object.entries(fill)) text = text.replaceAll(`__${key}__`, value);
  const file = join(mkdtempSync(join(work, "sipp-")), "scenario.xml");
  writeFileSync(file, text);
  const media = String(await freeUdpPort());
  return sipp(["-sf", file, "-i", "127.0.0.1", "-p", "0", "-mp", media, "-s", dialled, `127.0.0.1:${listener.node.port}`]);
}

const arrivalFor = (dialled: string) => worker.until(() => worker.cliArrivals.find((a) => a.dialled === dialled));
const endOf = (arrivalId: string) => worker.until(() => worker.cliEnds.find((e) => e.arrival_id === arrivalId)?.end);

describe("hosted-number listener", () => {
  it("answers a held number: the caller ID as it arrived, a tone, our BYE, and the end with the RTP heard", async () => {
    const arrivalId = randomUUID();
    worker.answerArrivalsWith((arrival) =>
      arrival.dialled === "4420312345"
        ? { answer: true, arrival_id: arrivalId, tone_seconds: 2 }
        : { answer: false, sip_code: 404, reason: "Not Found" },
    );
    const started = Date.now();
    const caller = await call(ANSWERED, "4420312345", { AUDIO: tonePcap(1) });
    expect(caller.code, caller.output).toBe(0);
    // The listener hung up after its tone (2 s), not before.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    const arrival = await arrivalFor("4420312345");
    expect(arrival).toMatchObject({
      node_id: "cli-node",
      from_user: "14155550100",
      from_display: "Route Test",
      asserted: "+14155550100",
      privacy: ["id", "critical"],
      identity: "eyJhbGciOiJFUzI1NiJ9.eyJ0ZXN0Ijp0cnVlfQ.c2lnbmF0dXJl;info=<https://cert.example/shaken.pem>;alg=ES256;ppt=shaken",
      src_ip: "127.0.0.1",
    });
    expect(arrival.src_port).toBeGreaterThan(0);
    const end = await endOf(arrivalId);
    expect(end).toMatchObject({ node_id: "cli-node", ended_by: "listener" });
    expect(end.packets).toBeGreaterThan(40);
    expect(end.mos).toBeGreaterThan(4);
    expect(end.packet_loss_pct).toBe(0);
    expect(node.cli!.active).toBe(0);
  });

  it("refuses a number it does not hold with the Worker's 404 (over TCP), and answers OPTIONS", async () => {
    worker.answerArrivalsWith(() => ({ answer: false, sip_code: 404, reason: "Not Found" }));
    const refused = await uac(listener, "127.0.0.1", "uac-rejected.xml", "4420399999", { CODE: "404", ANI: "14155550100" }, true);
    expect(refused.code, refused.output).toBe(0);
    expect((await arrivalFor("4420399999")).from_user).toBe("14155550100");

    const id = randomUUID().slice(0, 8);
    const options = [
      `OPTIONS sip:127.0.0.1:${listener.node.port} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:5099;rport;branch=z9hG4bK-${id}`,
      `From: <sip:probe@127.0.0.1>;tag=${id}`,
      `To: <sip:127.0.0.1:${listener.node.port}>`,
      `Call-ID: options-${id}`,
      "CSeq: 1 OPTIONS",
      "Max-Forwards: 70",
      "Content-Length: 0",
      "",
      "",
    ].join("\r\n");
    const [reply] = await sendRaw(listener, "127.0.0.1", options, 2_000, (replies) => replies.length > 0);
    expect(reply).toMatch(/^SIP\/2\.0 200 /);
    expect(reply).toMatch(/\r\nAllow: INVITE, ACK, CANCEL, BYE, OPTIONS\r\n/);
  });

  it("answers 503 when the Worker fails", async () => {
    worker.failArrivals(500);
    try {
      const refused = await uac(listener, "127.0.0.1", "uac-rejected.xml", "4420300503", { CODE: "503", ANI: "14155550100" });
      expect(refused.code, refused.output).toBe(0);
    } finally {
      worker.failArrivals(null);
    }
  });

  it("answers the caller's CANCEL before the answer with 487, and an arrival answered meanwhile ends as the caller's", async () => {
    const arrivalId = randomUUID();
    worker.answerArrivalsWith(async () => {
      await pause(1_500);
      return { answer: true, arrival_id: arrivalId, tone_seconds: 2 };
    });
    const caller = await call(CANCELLED, "4420300487");
    expect(caller.code, caller.output).toBe(0);
    expect(await endOf(arrivalId)).toMatchObject({ ended_by: "caller", packets: 0, mos: null });
  });

  it("ends early when the caller hangs up first", async () => {
    const arrivalId = randomUUID();
    worker.answerArrivalsWith(() => ({ answer: true, arrival_id: arrivalId, tone_seconds: 10 }));
    const caller = await uac(listener, "127.0.0.1", "uac.xml", "4420300200");
    expect(caller.code, caller.output).toBe(0);
    expect(await endOf(arrivalId)).toMatchObject({ ended_by: "caller", packets: 0, mos: null });
  });

  it("plays its tone in the law the caller chose, 1 kHz at -10 dBFS, once the caller's own RTP has come", async () => {
    const arrivalId = randomUUID();
    worker.answerArrivalsWith(() => ({ answer: true, arrival_id: arrivalId, tone_seconds: 1.5 }));
    const bound = (socket: Socket) => new Promise<number>((resolve) => socket.bind(0, "127.0.0.1", () => resolve(socket.address().port)));
    const [sip, rtp] = [createSocket("udp4"), createSocket("udp4")];
    const [sipPort, mediaPort] = [await bound(sip), await bound(rtp)];
    const messages: string[] = [];
    const heard: Buffer[] = [];
    sip.on("message", (m) => messages.push(m.toString()));
    rtp.on("message", (m) => heard.push(m));
    const send = (text: string) => sip.send(text.replace(/\n/g, "\r\n"), listener.node.port, "127.0.0.1");
    const head = (method: string, cseq: number, branch: string, to: string) =>
      `${method} sip:4420300001@127.0.0.1:${listener.node.port} SIP/2.0\nVia: SIP/2.0/UDP 127.0.0.1:${sipPort};branch=z9hG4bK${branch}\n` +
      `From: <sip:14155550100@127.0.0.1>;tag=raw\nTo: ${to}\nCall-ID: raw-${arrivalId}\nCSeq: ${cseq} ${method}\n` +
      `Contact: <sip:14155550100@127.0.0.1:${sipPort}>\nMax-Forwards: 70\n`;
    const sdp = `v=0\no=- 1 1 IN IP4 127.0.0.1\ns=-\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio ${mediaPort} RTP/AVP 8 0\n`;
    try {
      send(
        `${head("INVITE", 1, "inv", "<sip:4420300001@127.0.0.1>")}Content-Type: application/sdp\nContent-Length: ${sdp.replace(/\n/g, "\r\n").length}\n\n${sdp}`,
      );
      const ok = await until("the 200", () => messages.find((m) => m.startsWith("SIP/2.0 200")));
      expect(ok).toMatch(/\r\nm=audio \d+ RTP\/AVP 8\r\na=rtpmap:8 PCMA\/8000\r\n/);
      send(`${head("ACK", 1, "ack", /^To: (.*)$/m.exec(ok)![1]!.trim())}Content-Length: 0\n\n`);
      await pause(300);
      // Nothing is sent to an address an SDP names until RTP came from it.
      expect(heard).toHaveLength(0);
      const port = Number(/m=audio (\d+)/.exec(ok)![1]);
      // The caller's half second of audio, at once: a loaded machine cannot stretch it past the tone.
      for (let n = 0; n < 25; n++) {
        const packet = Buffer.alloc(172, 0xd5);
        packet.set([0x80, 8, 0, n, 0, 0, (n * 160) >> 8, (n * 160) & 0xff, 0, 0, 0, 7]);
        rtp.send(packet, port, "127.0.0.1");
      }
      await until("the listener's BYE", () => messages.some((m) => m.startsWith("BYE ")), 5_000);
      const end = await endOf(arrivalId);
      expect(end).toMatchObject({ ended_by: "listener", packets: 25 });
      expect(heard.length).toBeGreaterThan(20);
      expect(heard.every((p) => (p[1]! & 0x7f) === 8)).toBe(true);
      const pcm = heard.flatMap((p) => [...p.subarray(12)].map((code) => ALAW_TO_PCM[code]!));
      const peak = Math.max(...pcm.map(Math.abs));
      expect(20 * Math.log10(peak / 32767)).toBeCloseTo(-10, 0);
      let crossings = 0;
      for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 !== pcm[i]! < 0) crossings++;
      expect(crossings / 2 / (pcm.length / 8000)).toBeCloseTo(1000, -1);
    } finally {
      sip.close();
      rtp.close();
    }
  });

  it("takes a test call the node places to it, as a CLI check does: the caller ID as sent; answer delay and MOS in the call's progress", async () => {
    const arrivalId = randomUUID();
    worker.answerArrivalsWith(() => ({ answer: true, arrival_id: arrivalId, tone_seconds: 2 }));
    const command: OriginateCommand = {
      type: "originate",
      test_call_id: randomUUID(),
      sip_call_id: `${randomUUID()}@cli-listener`,
      number: "442079460000",
      caller_id: "14155550100",
      seconds: 1,
      speech: "route_test",
      ring_timeout_seconds: 10,
    };
    node.originator.originate(command);
    const end = await endOf(arrivalId);
    expect(await arrivalFor("442079460000")).toMatchObject({ from_user: "14155550100", asserted: null, privacy: [], identity: null });
    expect(end).toMatchObject({ ended_by: "listener" });
    expect(end.packets).toBeGreaterThan(50);
    const steps = await worker.until(() => {
      const mine = worker.progress.filter((p) => p.test_call_id === command.test_call_id).map((p) => p.progress);
      return mine.some((p) => p.status === "done" || p.status === "failed") && mine;
    });
    expect(steps.find((p) => p.status === "answered")?.answer_ms).toBeGreaterThanOrEqual(0);
    expect(steps.at(-1)).toMatchObject({ status: "done", sip_code: 200, ended_by: "callee" });
    expect(steps.at(-1)!.mos_received).toBeGreaterThan(4);
  });
});
