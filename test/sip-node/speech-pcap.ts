// Spoken call scripts as sipp plays them: the text is spoken by espeak-ng (Debian), brought to
// 8 kHz mono 16-bit by sox, and packed as PCMA RTP, 20 ms a packet, in a pcap for play_pcap_audio.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseWav } from "../../schema/wav.ts";
import { ALAW_TO_PCM, encodeAlaw } from "../../sip-node/media/g711.ts";
import { writePcapFile, type PcapRecord } from "../../sip-node/media/pcap.ts";
import { freeUdpPort, openAccount, uac, uas, type Stack, type TestAccount } from "./harness.ts";

const SAMPLES_PER_PACKET = 160;

/** The call scripts the tests speak (test/sip-node/call-scripts/<name>.txt). */
export const callScript = (name: string) => readFileSync(new URL(`./call-scripts/${name}.txt`, import.meta.url), "utf8").trim();

/** Speaks `text` into `dir`/<name>.pcap; answers the pcap's path, how long it plays, and the samples sipp sends. */
export function speechPcap(dir: string, name: string, text: string, voice = "en-us"): { path: string; ms: number; samples: Int16Array } {
  const spoken = join(dir, `${name}-espeak.wav`);
  const telephone = join(dir, `${name}-8k.wav`);
  execFileSync("espeak-ng", ["-v", voice, "-s", "150", "-w", spoken, text]);
  execFileSync("sox", [spoken, "-r", "8000", "-c", "1", "-b", "16", "-e", "signed-integer", telephone]);
  const pcm = parseWav(new Uint8Array(readFileSync(telephone))).samples;
  const packets = Math.ceil(pcm.length / SAMPLES_PER_PACKET);
  const samples = new Int16Array(packets * SAMPLES_PER_PACKET);
  const records: PcapRecord[] = [];
  for (let n = 0; n < packets; n++) {
    const rtp = new Uint8Array(12 + SAMPLES_PER_PACKET);
    rtp.set([0x80, 8, (n >> 8) & 0xff, n & 0xff]);
    new DataView(rtp.buffer).setUint32(4, n * SAMPLES_PER_PACKET);
    new DataView(rtp.buffer).setUint32(8, 0x5ca1ab1e);
    for (let i = 0; i < SAMPLES_PER_PACKET; i++) {
      const code = encodeAlaw(pcm[n * SAMPLES_PER_PACKET + i] ?? 0);
      rtp[12 + i] = code;
      samples[n * SAMPLES_PER_PACKET + i] = ALAW_TO_PCM[code]!;
    }
    records.push({
      timeMs: 1_700_000_000_000 + n * 20,
      src: { address: "10.0.0.2", port: 4000 },
      dst: { address: "10.0.0.1", port: 5000 },
      payload: rtp,
    });
  }
  const path = join(dir, `${name}.pcap`);
  writePcapFile(path, records);
  return { path, ms: packets * 20, samples };
}

const DTMF_1 = "/usr/share/sip-tester/dtmf_2833_1.pcap";

/**
 * A new account's call through the stack: the caller speaks the script `script`, presses 1 and
 * hangs up; the callee answers "Hello? Yes, speaking." Answers the account and the call's id.
 */
export async function scriptedCall(stack: Stack, dir: string, script: string): Promise<{ account: TestAccount; callId: string }> {
  const caller = speechPcap(dir, script, callScript(script));
  const callee = speechPcap(dir, "callee-hello", callScript("callee-hello"));
  const port = await freeUdpPort();
  const account = await openAccount(stack, port);
  const answering = uas("uas-media.xml", port, false, { AUDIO: callee.path });
  await answering.listening;
  const calling = await uac(stack, account.src, "uac-media.xml", "14155550123", {
    AUDIO: caller.path,
    // sipp paces its pcap with relative sleeps, so an 18 s script ends a few hundred ms late, and the
    // DTMF pcap started after AUDIO_MS cuts off what is left of it: a run with 400 ms to spare lost
    // the script's last words, and the recogniser (its cepstral mean taken over the whole call)
    // heard the rest differently. Two seconds to spare.
    AUDIO_MS: String(caller.ms + 2_000),
    DTMF: DTMF_1,
  });
  if (calling.code !== 0) throw new Error(`the caller's sipp failed:\n${calling.output}`);
  if ((await answering).code !== 0) throw new Error("the callee's sipp failed");
  return { account, callId: (await account.call("/api/calls")).items[0].id };
}
