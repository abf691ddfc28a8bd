// Queue consumers: each queue the Worker consumes (wrangler.toml [[queues.consumers]]) names
// its handler here. The calls pipeline adds the first (transcription, analysis, the verdict).
import type { Bindings } from "../env.ts";

export type QueueHandler = (batch: MessageBatch, env: Bindings, ctx: ExecutionContext) => Promise<void>;

export const CONSUMERS: Record<string, QueueHandler> = {};

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
