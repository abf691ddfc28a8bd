// The node's media: RTP ports, the relays of the calls up now, the watch for dead media
// (a call whose RTP stopped both ways is ended so it cannot hold a port and run up a bill),
// and the hand-over of recordings and captures to the Worker when a call ends.
import { mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { SipNodeConfig } from "../config.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import { PortAllocator } from "./ports.ts";
import { MediaRelay, type MediaFile } from "./relay.ts";

export type MediaEngineOptions = SipNodeConfig["media"] & { publicAddress: string };

const UPLOAD_ATTEMPTS = 3;

export class MediaEngine {
  readonly ports: PortAllocator;
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
    mkdirSync(options.spoolDir, { recursive: true });
    this.sweep = setInterval(() => this.endSilentCalls(), Math.min(1_000, options.timeoutMs / 2));
    this.sweep.unref();
  }

  /** Anchors a call's media at two port pairs of this node. */
  async open(callId: string, policy: { record: boolean; capture: boolean }): Promise<MediaRelay> {
    const relay = await MediaRelay.open(this.ports, { callId, publicAddress: this.options.publicAddress, spoolDir: this.options.spoolDir, ...policy });
    this.relays.set(relay, null);
    return relay;
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

  /** Sends a call's recording and captures to the Worker, then deletes them from the spool. */
  async upload(callId: string, files: MediaFile[]): Promise<void> {
    for (const file of files) {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.worker.uploadMedia(callId, file.name, file.path);
          await rm(file.path, { force: true });
          break;
        } catch (err) {
          if (attempt >= UPLOAD_ATTEMPTS) {
            this.log(`upload of ${file.name} for ${callId} failed, kept at ${file.path}: ${String(err)}`);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
        }
      }
    }
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
