// Queue consumers: each queue the Worker consumes (wrangler.toml [[queues.consumers]]) names
// its handler here.
import type { Bindings } from "../env.ts";
import { consumeAnalysis } from "./analysis.ts";
import { consumeDeliveries } from "./deliveries.ts";
import { consumeCallRecords } from "./call-records.ts";

export type QueueHandler = (batch: MessageBatch, env: Bindings, ctx: ExecutionContext) => Promise<void>;

export const CONSUMERS: Record<string, QueueHandler> = {
  /** Transcription, analysis and the verdict of recorded calls. */
  "call-shield-analysis": consumeAnalysis,
  /** Alerts and account webhook events. */
  "call-shield-deliveries": consumeDeliveries,
  /** Call records and events from the account ledgers, written to D1. */
  "call-shield-call-records": consumeCallRecords,
};

/** Hands a batch to its queue's handler; a batch from a queue nobody handles is retried, never dropped. */
export async function dispatchQueue(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  const handler = CONSUMERS[batch.queue];
  if (!handler) {
    console.error(`no consumer for queue ${batch.queue}; ${batch.messages.length} message(s) retried`);
    batch.retryAll();
    return;
  }
  await handler(batch, env, ctx);
}
