// Media through the node with sipp playing real G.711 from pcaps on both sides: the recording,
// the captures, quality, DTMF and the media timeout, read back through the public API.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerClient } from "../../sip-node/control/worker-client.ts";
import { MediaEngine } from "../../sip-node/media/engine.ts";
import { ALAW_TO_PCM, encodeAlaw } from "../../sip-node/media/g711.ts";
import { readPcap, writePcapFile } from "../../sip-node/media/pcap.ts";
import { parseWav } from "../../schema/wav.ts";
import { freeUdpPort, openAccount, pause, startStack, uac, uas, until, type Stack, type TestAccount } from "./harness.ts";

const SIPP_MEDIA = "/usr/share/sip-tester";
const SPEECH = `${SIPP_MEDIA}/g711a.pcap`;
const DTMF_1 = `${SIPP_MEDIA}/dtmf_2833_1.pcap`;
const work = mkdtempSync(join(tmpdir(), "media-test-"));

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The speech sipp ships: 236 PCMA packets of 240 samples (30 ms). */
const speech = readPcap(readFileSync(SPEECH));
const rtpPayload = (packet: Uint8Array) => packet.subarray(12);
const speechSamples = Int16Array.from(speech.flatMap((p) => [...rtpPayload(p.payload)].map((b) => ALAW_TO_PCM[b]!)));

/** A 1 kHz PCMA tone of `seconds`, 20 ms a packet, as a pcap sipp can play. */
function tonePcap(seconds: number): { path: string; samples: Int16Array } {
  const packets = seconds * 50;
  const samples = new Int16Array(packets * 160);
  const records = [];
  for (let n = 0; n < packets; n++) {
    const rtp = new Uint8Array(12 + 160);
    rtp.set([0x80, 8, (n >> 8) & 0xff, n & 0xff]);
    new DataView(rtp.buffer).setUint32(4, n * 160);
    new DataView(rtp.buffer).setUint32(8, 0x70e70e);
    for (let i = 0; i < 160; i++) {
      const code = encodeAlaw(Math.round(8000 * Math.sin((2 * Math.PI * 1000 * (n * 160 + i)) / 8000)));
      rtp[12 + i] = code;
      samples[n * 160 + i] = ALAW_TO_PCM[code]!;
    }
    records.push({
      timeMs: 1_700_000_000_000 + n * 20,
      src: { address: "10.0.0.2", port: 4000 },
      dst: { address: "10.0.0.1", port: 5000 },
      payload: rtp,
    });
  }
  const path = join(work, `tone-${seconds}s.pcap`);
  writePcapFile(path, records);
  return { path, samples };
}

/** The speech with every 20th packet left out. */
function lossyPcap(): string {
  const path = join(work, "speech-lossy.pcap");
  writePcapFile(
    path,
    speech.filter((_, i) => i % 20 !== 19),
  );
  return path;
}

/** A new account's call: the caller plays `callerAudio` then a DTMF 1, the destination `calleeAudio`. */
async function callWithMedia(callerAudio: string, calleeAudio: string, destination: Record<string, unknown> = {}): Promise<TestAccount> {
  const port = await freeUdpPort();
  const account = await openAccount(stack, port, destination);
  const callee = uas("uas-media.xml", port, false, { AUDIO: calleeAudio });
  await callee.listening;
  const caller = await uac(stack, account.src, "uac-media.xml", "14155550123", { AUDIO: callerAudio, AUDIO_MS: "7600", DTMF: DTMF_1 });
  expect(caller.code, caller.output).toBe(0);
  expect((await callee).code).toBe(0);
  return account;
}

/** The call once the Worker has its end and, when `withRecording`, its recording. */
async function finishedCall(account: TestAccount, withRecording: boolean): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const list = await account.call("/api/calls");
    const id = list.items?.[0]?.id;
    if (id) {
      const call = await account.call(`/api/calls/${id}`);
      if (call.ended_at && (!withRecording || call.recording_available)) return call;
    }
    await pause(100);
  }
  throw new Error("the call did not finish");
}

async function download(account: TestAccount, path: string): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const res = await fetch(`${stack.api}${path}`, { headers: { authorization: `Bearer ${account.token}` } });
  return { status: res.status, type: res.headers.get("content-type"), bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Where `needle` starts in `haystack` (exact samples), or -1. */
function indexOfSamples(haystack: Int16Array, needle: Int16Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const channel = (interleaved: Int16Array, which: 0 | 1) => interleaved.filter((_, i) => i % 2 === which);

describe("media through the node", () => {
  it("records the call as a stereo WAV, caller left and callee right, with quality, DTMF and captures", async () => {
    const tone = tonePcap(4);
    const account = await callWithMedia(SPEECH, tone.path);
    const call = await finishedCall(account, true);

    expect(call).toMatchObject({ status: "completed", codec: "PCMA", recording_available: true, packet_loss_pct: 0 });
    expect(call.mos).toBeGreaterThan(4);
    expect(call.dtmf).toEqual([expect.objectContaining({ digit: "1", channel: "caller", source: "rfc4733" })]);
    expect(call.dtmf[0].t).toBeGreaterThan(7);
    expect(call.qos.caller.packets).toBe(speech.length + 10);
    expect(call.qos.callee.packets).toBe(200);

    const wav = await download(account, `/api/calls/${call.id}/recording`);
    expect(wav.status).toBe(200);
    expect(wav.type).toBe("audio/wav");
    const audio = parseWav(wav.bytes);
    expect(audio).toMatchObject({ sampleRate: 8000, channels: 2, bitsPerSample: 16 });
    const seconds = audio.samples.length / 2 / 8000;
    expect(seconds).toBeGreaterThan(7);
    expect(seconds).toBeLessThan(8.5);
    const left = channel(audio.samples, 0);
    const right = channel(audio.samples, 1);
    // Every sample of the speech, in order, on the left; the tone on the right and not on the left.
    expect(indexOfSamples(left, speechSamples)).toBeGreaterThanOrEqual(0);
    expect(indexOfSamples(right, tone.samples)).toBeGreaterThanOrEqual(0);
    expect(indexOfSamples(left, tone.samples.subarray(0, 800))).toBe(-1);

    const pcap = await download(account, `/api/calls/${call.id}/pcap`);
    expect(pcap.type).toBe("application/zip");
    const legs = unzipSync(pcap.bytes);
    expect(Object.keys(legs).sort()).toEqual(["callee.pcap", "caller.pcap"]);
    // Each leg's capture holds both directions of that leg: what came in and what we sent.
    expect(readPcap(legs["caller.pcap"]!)).toHaveLength(speech.length + 10 + 200);
    expect(readPcap(legs["callee.pcap"]!)).toHaveLength(speech.length + 10 + 200);
  }, 60_000);

  it("reports about 5% loss on a stream with every 20th packet missing", async () => {
    const account = await callWithMedia(lossyPcap(), tonePcap(2).path);
    const call = await finishedCall(account, true);
    expect(call.qos.caller.lost).toBe(11);
    expect(call.packet_loss_pct).toBeGreaterThan(4);
    expect(call.packet_loss_pct).toBeLessThan(6);
    expect(call.qos.callee.loss_pct).toBe(0);
    expect(call.mos).toBeLessThan(call.qos.callee.mos);
  }, 60_000);

  it("relays a relay-only call without recording it", async () => {
    const account = await callWithMedia(SPEECH, tonePcap(2).path, { processing: "relay_only" });
    const call = await finishedCall(account, false);
    expect(call.qos.caller.packets).toBe(speech.length + 10);
    await pause(500); // deliberate: a window in which no recording may turn up
    expect((await account.call(`/api/calls/${call.id}`)).recording_available).toBe(false);
    expect((await download(account, `/api/calls/${call.id}/recording`)).status).toBe(404);
    expect((await download(account, `/api/calls/${call.id}/pcap`)).status).toBe(404);
  }, 60_000);

  it("answers the inspector's live per-leg stats while the call is up", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-media.xml", port, false, { AUDIO: tonePcap(4).path });
    await callee.listening;
    const caller = uac(stack, account.src, "uac-media.xml", "14155550123", { AUDIO: SPEECH, AUDIO_MS: "7600", DTMF: DTMF_1 });
    const id: string = await until(
      "the call active",
      async () => (await account.call("/api/calls")).items?.find((c: any) => c.status === "active")?.id,
      10_000,
      100,
    );
    // Until a second or two of media has gone each way (the callee's tone plays from the answer).
    await until("media both ways", () => {
      const stats = stack.node.calls.mediaStats(id);
      return stats && stats.caller.packets > 40 && stats.callee.packets > 60;
    });
    const live = stack.node.calls.mediaStats(id);
    expect(live?.caller.packets).toBeGreaterThan(40);
    expect(live?.callee.packets).toBeGreaterThan(60);
    expect(live?.caller).toMatchObject({ errors: 0, lost: 0, endpoint: expect.stringMatching(/^127\.0\.0\.\d+:\d+$/) });
    expect(live?.callee.mos).toBeGreaterThan(4);
    expect((await caller).code).toBe(0);
    expect((await callee).code).toBe(0);
    expect(stack.node.calls.mediaStats(id)).toBeNull();
    await finishedCall(account, true);
  }, 60_000);

  it("hands over what an earlier run left in its spool at start, the cut-short WAV header repaired", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const worker = workerClient({ url: stack.api, nodeToken: stack.nodeToken });
    const ticket = await worker.admit({
      node_id: "test-node",
      sip_call_id: "spooled@test",
      src_ip: account.src,
      ani: "14155550100",
      dialed: "14155550123",
      origin: "sip",
    });
    if (ticket.decision !== "admit") throw new Error(`not admitted: ${JSON.stringify(ticket)}`);
    // An earlier run's call: its record is in D1 (written by the ledger's queue) by the time a node starts again.
    for (let i = 0; i < 50 && (await account.call(`/api/calls/${ticket.call_id}`))?.id !== ticket.call_id; i++) await pause(100);
    const spool = mkdtempSync(join(work, "spool-"));
    const logged: string[] = [];
    const engine = new MediaEngine(
      {
        portMin: 50_000,
        portMax: 50_009,
        bind: "127.0.0.1",
        timeoutMs: 60_000,
        holdTimeoutMs: 60_000,
        spoolDir: spool,
        publicAddress: "127.0.0.1",
      },
      worker,
      (line) => logged.push(line),
    );
    // What a crash leaves: the recorder's placeholder header (sizes 0) and one second of audio.
    const audio = new Int16Array(8000 * 2).map((_, i) => (i % 2 === 0 ? 1000 : -1000));
    writeFileSync(engine.spool.path(ticket.call_id, "recording.wav"), Buffer.concat([Buffer.alloc(44), Buffer.from(audio.buffer)]));
    writePcapFile(engine.spool.path(ticket.call_id, "caller.pcap"), speech.slice(0, 10));
    writePcapFile(engine.spool.path(crypto.randomUUID(), "caller.pcap"), speech.slice(0, 10));
    // A capture the crash left empty, and a recording cut before its header: nothing to upload, ever.
    writeFileSync(engine.spool.path(ticket.call_id, "callee.pcap"), Buffer.alloc(0));
    writeFileSync(engine.spool.path(crypto.randomUUID(), "recording.wav"), Buffer.from("RIFF"));
    // A file planted under the call's plain name: not the node's, never uploaded.
    const planted = `${ticket.call_id}-callee.pcap`;
    writePcapFile(join(spool, planted), speech.slice(0, 3));
    expect(await engine.uploadLeftovers()).toBe(2);
    engine.stop();
    const left = readdirSync(spool).filter((f) => !f.startsWith("."));
    expect(left, "nothing is left to be retried at the next start but the planted file").toEqual([planted]);
    expect(logged).toContainEqual(expect.stringMatching(/not written by this node, not uploaded/));
    expect(logged.filter((line) => /holds nothing that can be uploaded, dropped/.test(line))).toHaveLength(2);

    const call = await account.call(`/api/calls/${ticket.call_id}`);
    expect(call.recording_available).toBe(true);
    const wav = parseWav((await download(account, `/api/calls/${ticket.call_id}/recording`)).bytes);
    expect(wav).toMatchObject({ sampleRate: 8000, channels: 2 });
    expect(wav.samples).toEqual(audio);
    const pcap = await download(account, `/api/calls/${ticket.call_id}/pcap`);
    expect(pcap.type).toBe("application/vnd.tcpdump.pcap");
    expect(readPcap(pcap.bytes)).toHaveLength(10);
  }, 60_000);

  it("ends an answered call whose RTP stopped both ways, on both sides, as a media timeout", async () => {
    const port = await freeUdpPort();
    const account = await openAccount(stack, port);
    const callee = uas("uas-hungup.xml", port);
    await callee.listening;
    const started = Date.now();
    const caller = await uac(stack, account.src, "uac-silent.xml");
    expect(caller.code, caller.output).toBe(0);
    expect((await callee).code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    const call = await finishedCall(account, false);
    expect(call).toMatchObject({ status: "completed", hangup_by: "platform", end_reason: "media_timeout" });
  }, 60_000);
});
