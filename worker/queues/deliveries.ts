// The delivery queue's consumer: alerts (services/alerts/alerts.ts) and account webhook events
// (services/webhooks/account-webhook.ts). A message that fails unexpectedly (D1 unreachable) is retried by the
// queue; the webhook's own retries with backoff are new messages, each attempt logged.
import type { Bindings } from "../env.ts";
import { loadConfig } from "../env.ts";
import { describeError } from "../lib/errors.ts";
import { sendAlert } from "../services/alerts/alerts.ts";
import { newServices } from "../composition.ts";
import type { Services } from "../services/context.ts";
import { attemptWebhookDelivery } from "../services/webhooks/account-webhook.ts";

export type DeliveryMessage = { type: "alert"; delivery_id: string } | { type: "webhook"; delivery_id: string };

export type DeliveryHandlers = Record<DeliveryMessage["type"], (s: Services, deliveryId: string) => Promise<void>>;

const HANDLERS: DeliveryHandlers = {
  alert: sendAlert,
  webhook: async (s, deliveryId) => void (await attemptWebhookDelivery(s, deliveryId)),
};

/** Runs one message's work; exported for tests that drain a recorded queue. */
export async function runDelivery(s: Services, message: DeliveryMessage): Promise<void> {
  await HANDLERS[message.type](s, message.delivery_id);
}

export async function consumeDeliveries(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  const config = loadConfig(env);
  const services = newServices(env, config, {
    origin: config.PUBLIC_ORIGIN ?? "https://queue.invalid",
    background: (w) => ctx.waitUntil(w),
  });
  for (const message of batch.messages) {
    const body = message.body as Partial<DeliveryMessage> | null;
    if ((body?.type !== "alert" && body?.type !== "webhook") || typeof body.delivery_id !== "string") {
      console.error("delivery queue: a message without a type and delivery_id was dropped");
      message.ack();
      continue;
    }
    try {
      await runDelivery(services, body as DeliveryMessage);
      message.ack();
    } catch (err) {
      console.error(`delivery ${body.type} ${body.delivery_id}: unexpected failure`, describeError(err));
      message.retry({ delaySeconds: 30 });
    }
  }
}
