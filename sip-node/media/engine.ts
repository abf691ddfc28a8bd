// The node's media: RTP ports, the relays of the calls up now, the watch for dead media
// (a call whose RTP stopped both ways is ended so it cannot hold a port and run up a bill),
// each call's SIP log file, and the hand-over of recordings, captures and SIP logs to the Worker
// when a call ends.
import { open as openFile, readdir, rm, stat } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import type { SipNodeConfig } from "../config.ts";
import { WorkerApiError, type WorkerClient } from "../control/worker-client.ts";
import { HEADER_BYTES, wavHeader } from "../../schema/wav.ts";
import { AddressPolicy } from "../sip/address-policy.ts";
import { PortAllocator } from "./ports.ts";
import { MediaRelay, type MediaFile, type Side } from "./relay.ts";
import { WebRtcError, WebRtcLeg } from "../webrtc/webrtc-leg.ts";
import { repairSipLog, SipLogWriter } from "./sip-log.ts";
import { Spool } from "./spool.ts";
import type { MediaName } from "../../schema/node-api.ts";

/**
 * The media part of the configuration (the allowed ranges may be left out: none). `spoolKey` (hex)
 * signs spool names; absent, the spool keeps its own key in a file of its own.
 */
export type MediaEngineOptions = Omit<SipNodeConfig["media"], "allowedPrivateRanges" | "webrtcPublicAddress"> &
  Partial<Pick<SipNodeConfig["media"], "allowedPrivateRanges" | "webrtcPublicAddress">> & { publicAddress: string; spoolKey?: string };

const UPLOAD_ATTEMPTS = 3;
/** A 409 means the call's record has not reached D1 yet (it does within seconds): asked again longer. */
const NOT_YET_RECORDED_ATTEMPTS = 10;

export class MediaEngine {
  readonly ports: PortAllocator;
  readonly spool: Spool;
  /** Where the node may send SIP and RTP: no private, loopback or link-local peer unless allowed. */
  readonly peers: AddressPolicy;
  private readonly options: MediaEngineOptions;
  /** Open relays, with what to do when an answered call's media goes silent (null before answer). */
  private readonly relays = new Map<MediaRelay, (() => void) | null>();
  private readonly sweep: ReturnType<typeof setInterval>;
  private readonly worker: WorkerClient;
  private readonly log: (message: string) => void;

  constructor(options: MediaEngineOptions, worker: WorkerClient, log: (message: string) => void) {
    this.options = options;
    this.worker = worker;
    this.log = log;
    this.ports = new PortAllocator(options, options.bind);
    this.spool = new Spool(options.spoolDir, options.spoolKey);
    this.peers = new AddressPolicy(options.allowedPrivateRanges ?? [], options.bind);
    this.sweep = setInterval(() => this.endSilentCalls(), Math.min(1_000, options.timeoutMs / 2));
    this.sweep.unref();
  }

  /** Anchors a call's media at two port pairs of this node. */
  async open(callId: string, policy: { record: boolean; capture: boolean }): Promise<MediaRelay> {
    const relay = await MediaRelay.open(this.ports, {
      callId,
      publicAddress: this.options.publicAddress,
      spoolDir: this.spool.dir,
      spoolPath: (name) => this.spool.path(callId, name),
      allowsPeer: (address) => this.peers.allows(address),
      ...policy,
    });
    this.relays.set(relay, null);
    return relay;
  }

  /**
   * A web dialer call's WebRTC media (sip-node/webrtc/): answers the browser's offer with a host
   * candidate at the node's public address, on a port of the RTP range, and speaks for the
   * browser on `side` of the call's relay. Throws WebRtcError when the offer cannot be answered.
   */
  async openWebRtcLeg(relay: MediaRelay, side: Side, offerSdp: string): Promise<WebRtcLeg> {
    const publicAddress = this.options.webrtcPublicAddress ?? this.options.publicAddress;
    if (isIP(publicAddress) === 0 || publicAddress === "0.0.0.0" || publicAddress === "::") {
      throw new WebRtcError(`no address for the WebRTC candidate (${publicAddress}): set WEBRTC_PUBLIC_ADDRESS to the node's public IP`);
    }
    const lent = await this.ports.lend();
    const leg = await WebRtcLeg.answer({
      offerSdp,
      bindAddress: this.options.bind,
      publicAddress,
      port: lent.port,
      onClose: lent.release,
    }).catch((err: unknown) => {
      lent.release();
      throw err;
    });
    leg.connect(relay, side);
    return leg;
  }

  /** The call's SIP log in the spool (`<call id>-<tag>-sip-log.jsonl`), uploaded with its media. */
  openSipLog(callId: string): SipLogWriter {
    return new SipLogWriter(this.spool.path(callId, "sip-log.jsonl"));
  }

  /** From the answer on: `onSilence` ends the call when its RTP stops both ways for too long. */
  watch(relay: MediaRelay, onSilence: () => void): void {
    if (!this.relays.has(relay)) return;
    relay.touch();
    this.relays.set(relay, onSilence);
  }

  /** Closes the relay and sums up its media; the files stay in the spool until uploaded. */
  async close(relay: MediaRelay) {
    this.relays.delete(relay);
    return relay.close();
  }

  get activeRelays(): number {
    return this.relays.size;
  }

  /**
   * Sends a call's recording, captures or SIP log to the Worker, then deletes them from the spool;
   * `customerId` names the account whose call ledger knows the call (unknown for leftovers).
   */
  async upload(callId: string, files: MediaFile[], customerId?: string): Promise<void> {
    for (const file of files) {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.worker.uploadMedia(callId, file.name, file.path, customerId);
          await rm(file.path, { force: true });
          break;
        } catch (err) {
          if (err instanceof WorkerApiError && refusedForGood(err.status)) {
            // An unknown call (another deployment's spool) or a file the Worker will never take
            // (empty, malformed): keeping it would retry it at every start.
            this.log(`upload of ${file.name} for ${callId} refused (${err.status}), dropped: ${err.message}`);
            await rm(file.path, { force: true });
            break;
          }
          const notYet = err instanceof WorkerApiError && err.status === 409;
          if (attempt >= (notYet ? NOT_YET_RECORDED_ATTEMPTS : UPLOAD_ATTEMPTS)) {
            this.log(`upload of ${file.name} for ${callId} failed, kept at ${file.path}: ${String(err)}`);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, notYet ? 500 : 500 * attempt));
        }
      }
    }
  }

  /**
   * Files a previous run of this node left in its spool (uploads that failed, a crash mid-call)
   * go to the Worker at start. A recording cut short by a crash gets a WAV header that matches
   * what was written; a SIP log keeps its whole lines. The spool is this node's alone, so nothing in it belongs to a live call.
   */
  async uploadLeftovers(): Promise<number> {
    const byCall = new Map<string, MediaFile[]>();
    /** Media files whose names this node did not sign: never uploaded, left for the operator. */
    const foreign: string[] = [];
    for (const entry of await readdir(this.spool.dir)) {
      const written = this.spool.parse(entry);
      if (!written) {
        if (/\.(wav|pcap|jsonl)$/.test(entry)) foreign.push(entry);
        continue;
      }
      const { callId, name } = written;
      const path = join(this.spool.dir, entry);
      if (!(await usableLeftover(name, path))) {
        this.log(`spooled ${entry} holds nothing that can be uploaded, dropped`);
        await rm(path, { force: true });
        continue;
      }
      byCall.set(callId, [...(byCall.get(callId) ?? []), { name, path }]);
    }
    if (foreign.length > 0) {
      const some = foreign.slice(0, 3).join(", ");
      this.log(
        `${foreign.length} spooled file(s) were not written by this node, not uploaded: ${some}${foreign.length > 3 ? ", ..." : ""}`,
      );
    }
    for (const [callId, files] of byCall) await this.upload(callId, files);
    return byCall.size;
  }

  private endSilentCalls(): void {
    const now = Date.now();
    for (const [relay, onSilence] of this.relays) {
      if (!onSilence) continue;
      const limit = relay.onHold ? this.options.holdTimeoutMs : this.options.timeoutMs;
      if (relay.silentForMs(now) >= limit) {
        this.relays.delete(relay);
        onSilence();
      }
    }
  }

  stop(): void {
    clearInterval(this.sweep);
  }
}

/** A 4xx the Worker will answer again whatever the retry (not a timeout, not a throttle, not a record still on its way to D1). */
const refusedForGood = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;

/**
 * Whether a file an earlier run left is worth uploading, made ready if so: a recording with audio
 * (its header rewritten to the sizes written), a capture with a pcap header and packets, a SIP log
 * with a whole line (a cut last line removed).
 */
async function usableLeftover(name: MediaName, path: string): Promise<boolean> {
  const { size } = await stat(path);
  if (name === "sip-log.jsonl") return repairSipLog(path);
  if (name === "recording.wav") {
    if (size <= HEADER_BYTES) return false;
    await repairWavHeader(path);
    return true;
  }
  if (size <= PCAP_HEADER_BYTES) return false;
  const file = await openFile(path, "r");
  try {
    const magic = Buffer.alloc(4);
    await file.read(magic, 0, 4, 0);
    return PCAP_MAGICS.includes(magic.readUInt32LE(0));
  } finally {
    await file.close();
  }
}

const PCAP_HEADER_BYTES = 24;
/** libpcap's magic in either byte order, microsecond or nanosecond timestamps. */
const PCAP_MAGICS = [0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1];

/** Rewrites a spooled WAV's header with the sizes of the audio actually in the file. */
async function repairWavHeader(path: string): Promise<void> {
  const { size } = await stat(path);
  if (size < HEADER_BYTES) return;
  const file = await openFile(path, "r+");
  try {
    const dataBytes = (size - HEADER_BYTES) & ~3;
    await file.write(wavHeader({ sampleRate: 8000, channels: 2, dataBytes }), 0, HEADER_BYTES, 0);
  } finally {
    await file.close();
  }
}
