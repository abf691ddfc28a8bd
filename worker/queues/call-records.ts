// The call-records queue's consumer: what the account ledgers' outboxes send (call records and
// events) written to D1 in batches (services/calls/record-writer.ts), screening breaches
// alerted (services/screening/breach-alerts.ts), and the records screening flagged handed to the
// account's screening alert rules (services/alerts/alerts.ts). A message whose call is not
// in D1 yet (its record is in a later batch) is retried shortly; a failed write retries the batch.
import type { CallRecordMessage, ScreeningBreachMessage } from "../../durable-objects/call-ledger/call-ledger.ts";
import type { Bindings } from "../env.ts";
import { loadConfig } from "../env.ts";
import { describeError } from "../lib/errors.ts";
import { writeCallRecords, type WriteOutcome } from "../services/calls/record-writer.ts";
import type { Services } from "../services/context.ts";
import { alertScreeningBreach } from "../services/screening/breach-alerts.ts";
import { alertsForScreening } from "../services/alerts/alerts.ts";
import { newServices } from "../composition.ts";

export async function consumeCallRecords(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  const services = newServices(env, loadConfig(env), { origin: "https://queue.invalid", background: (w) => ctx.waitUntil(w) });
  const bodies = batch.messages.map((m) => m.body as CallRecordMessage);
  let outcomes: WriteOutcome[];
  try {
    outcomes = await writeCallRecords(services, bodies);
  } catch (err) {
    console.error("call records: a batch could not be written, retried", describeError(err));
    batch.retryAll({ delaySeconds: 2 });
    return;
  }
  await screeningAlerts(services, bodies);
  for (const [i, message] of batch.messages.entries()) {
    const body = bodies[i]!;
    if (body.type === "screening_breach" && !(await alerted(services, body))) outcomes[i] = "retry";
    if (outcomes[i] === "retry") message.retry({ delaySeconds: 1 });
    else message.ack();
  }
}

/** The records are written whatever becomes of their alerts: one that cannot be claimed is logged, not retried. */
async function screeningAlerts(services: Services, bodies: CallRecordMessage[]): Promise<void> {
  const records = bodies.flatMap((m) => (m.type === "record" ? [m.record as Parameters<typeof alertsForScreening>[1][number]] : []));
  if (!records.length) return;
  await alertsForScreening(services, records).catch((err: unknown) => {
    console.error("call records: screening alerts could not be claimed", describeError(err));
  });
}

/** A screening breach alerted (webhook, alert channels); false when it should be tried again. */
async function alerted(services: Services, breach: ScreeningBreachMessage): Promise<boolean> {
  try {
    await alertScreeningBreach(services, breach);
    return true;
  } catch (err) {
    console.error("call records: a screening breach could not be alerted, retried", describeError(err));
    return false;
  }
}
