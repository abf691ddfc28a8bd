// Destination monitoring: every interval, an OPTIONS to each destination the Worker lists as
// monitored. A destination is marked down only after several misses in a row and up again on
// the first answer, so one lost datagram does not flap it; every result goes to the Worker
// with the status this hysteresis gives.
import type { MonitorResult } from "../../schema/node-api.ts";
import type { WorkerClient } from "../control/worker-client.ts";
import type { TransactionLayer } from "../sip/transactions.ts";
import { sendOptions } from "./options-pinger.ts";

export const MISSES_BEFORE_DOWN = 3;

type Health = { status: "up" | "down"; misses: number };

export class DestinationMonitor {
  private readonly health = new Map<string, Health>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly deps: {
    layer: TransactionLayer;
    local: { address: string; port: number };
    worker: WorkerClient;
    log: (m: string) => void;
  };

  constructor(deps: DestinationMonitor["deps"]) {
    this.deps = deps;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.sweep().catch((err: unknown) => this.deps.log(`monitor sweep: ${String(err)}`)), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One round: check every monitored destination at once, report all results. */
  async sweep(): Promise<MonitorResult[]> {
    const { destinations } = await this.deps.worker.monitorTargets();
    const results = await Promise.all(
      destinations.map(async (d) => {
        const answer = await sendOptions(this.deps.layer, this.deps.local, { host: d.host, port: d.port, transport: d.transport });
        return {
          destination_id: d.id,
          status: this.next(d.id, answer.code !== null),
          at: new Date().toISOString(),
          rtt_ms: answer.rtt_ms,
          code: answer.code,
          error: answer.error,
        };
      }),
    );
    if (results.length > 0) await this.deps.worker.monitorResults(results);
    return results;
  }

  /** The status after one check: up on any answer, down after MISSES_BEFORE_DOWN misses in a row. */
  next(id: string, answered: boolean): "up" | "down" {
    const h = this.health.get(id) ?? { status: "up", misses: 0 };
    if (answered) {
      h.status = "up";
      h.misses = 0;
    } else if (++h.misses >= MISSES_BEFORE_DOWN) h.status = "down";
    this.health.set(id, h);
    return h.status;
  }
}
