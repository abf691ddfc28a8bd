// The call-records queue's consumer: what the account ledgers' outboxes send (call records and
// events) written to D1 in batches (services/calls/record-writer.ts). A message whose call is not
// in D1 yet (its record is in a later batch) is retried shortly; a failed write retries the batch.
import type { CallRecordMessage } from "../../durable-objects/call-ledger/call-ledger.ts";
import type { Bindings } from "../env.ts";
import { loadConfig } from "../env.ts";
import { describeError } from "../lib/errors.ts";
import { writeCallRecords } from "../services/calls/record-writer.ts";
import { newServices } from "../composition.ts";

export async function consumeCallRecords(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  const services = newServices(env, loadConfig(env), { origin: "https://queue.invalid", background: (w) => ctx.waitUntil(w) });
  try {
    const outcomes = await writeCallRecords(
      services,
      batch.messages.map((m) => m.body as CallRecordMessage),
    );
    batch.messages.forEach((message, i) => (outcomes[i] === "retry" ? message.retry({ delaySeconds: 1 }) : message.ack()));
  } catch (err) {
    console.error("call records: a batch could not be written, retried", describeError(err));
    batch.retryAll({ delaySeconds: 2 });
  }
}
