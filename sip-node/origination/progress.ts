// A test call's progress on its way to the Worker (POST /internal/test-calls/{id}/progress): in
// order per test call (one post at a time), each retried with backoff while the Worker cannot be
// reached; the final state (done, failed, cancelled) is tried longest. A post the Worker refuses
// for good (4xx: an unknown test call) is dropped. The Worker ignores a step back, so a late
// retry of an earlier state cannot undo a later one.
import type { TestCallProgress } from "../../schema/node-api.ts";
import { WorkerApiError, type WorkerClient } from "../control/worker-client.ts";

export type ProgressStep = Omit<TestCallProgress, "at" | "node_id">;

const FINAL = new Set(["done", "failed", "cancelled"]);
const ATTEMPTS = 4;
const FINAL_ATTEMPTS = 10;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5_000;

export class ProgressPoster {
  private readonly worker: Pick<WorkerClient, "testCallProgress">;
  private readonly nodeId: string;
  private readonly log: (message: string) => void;
  private readonly chains = new Map<string, Promise<void>>();

  constructor(worker: Pick<WorkerClient, "testCallProgress">, nodeId: string, log: (message: string) => void) {
    this.worker = worker;
    this.nodeId = nodeId;
    this.log = log;
  }

  /** Queues one step of a test call after its earlier ones; resolves once it is posted (or given up). */
  post(testCallId: string, step: ProgressStep): Promise<void> {
    const progress: TestCallProgress = { ...step, at: new Date().toISOString(), node_id: this.nodeId };
    const previous = this.chains.get(testCallId) ?? Promise.resolve();
    const next = previous.then(() => this.send(testCallId, progress));
    this.chains.set(testCallId, next);
    void next.finally(() => {
      if (this.chains.get(testCallId) === next) this.chains.delete(testCallId);
    });
    return next;
  }

  private async send(testCallId: string, progress: TestCallProgress): Promise<void> {
    const attempts = FINAL.has(progress.status) ? FINAL_ATTEMPTS : ATTEMPTS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.worker.testCallProgress(testCallId, progress);
      } catch (err) {
        const refused = err instanceof WorkerApiError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
        if (refused || attempt >= attempts) {
          this.log(`test call ${testCallId}: progress ${progress.status} not delivered: ${String(err)}`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(FIRST_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS)));
      }
    }
  }
}
