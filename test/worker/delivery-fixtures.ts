// The outside world's edges of alerts and the webhook, replaced by recorders behind the same
// adapters production uses: the outbound HTTP adapter, the mail adapter, the delivery queue.
import type { OutboundAnswer, OutboundHttp, OutboundPost } from "../../worker/providers/http/outbound.ts";
import type { MailMessage, MailSender } from "../../worker/providers/mail/mail.ts";
import { runDelivery, type DeliveryMessage } from "../../worker/queues/deliveries.ts";
import type { Services } from "../../worker/services/context.ts";
import { testServices } from "./fixtures.ts";

/** A public address (example.com's) every name resolves to unless a test says otherwise. */
export const PUBLIC_ADDRESS = "93.184.215.14";

export type OutboundRecorder = OutboundHttp & { posts: OutboundPost[]; answers: Array<number | Error>; addresses: Map<string, string[]> };

/** Answers each POST with the next of `answers` (the last repeats); names resolve to PUBLIC_ADDRESS unless mapped. */
export function outboundRecorder(...answers: Array<number | Error>): OutboundRecorder {
  const recorder: OutboundRecorder = {
    posts: [],
    answers: answers.length ? answers : [200],
    addresses: new Map(),
    async post(request: OutboundPost): Promise<OutboundAnswer> {
      recorder.posts.push(request);
      const answer = recorder.answers.length > 1 ? recorder.answers.shift()! : recorder.answers[0]!;
      if (answer instanceof Error) throw answer;
      return { status: answer, body: "" };
    },
    async resolve(host: string) {
      return recorder.addresses.get(host) ?? [PUBLIC_ADDRESS];
    },
  };
  return recorder;
}

export type MailRecorder = MailSender & { sent: MailMessage[] };

/** A configured mail service that accepts everything. */
export function mailRecorder(): MailRecorder {
  const recorder: MailRecorder = {
    configured: true,
    sent: [],
    async send(message) {
      recorder.sent.push(message);
      return { sent: true, error: null, skipped_reason: null };
    },
  };
  return recorder;
}

export type QueueRecorder = { messages: Array<{ body: DeliveryMessage; delaySeconds: number }>; queue: Queue<unknown> };

export function queueRecorder(): QueueRecorder {
  const messages: QueueRecorder["messages"] = [];
  const queue = {
    send: async (body: unknown, options?: { delaySeconds?: number }) =>
      void messages.push({ body: body as DeliveryMessage, delaySeconds: options?.delaySeconds ?? 0 }),
  } as unknown as Queue<unknown>;
  return { messages, queue };
}

/** Services whose deliveries are recorded, and a drain that runs queued messages as the consumer would. */
export function deliveryServices(overrides: Partial<Services> = {}) {
  const outbound = outboundRecorder();
  const mail = mailRecorder();
  const deliveries = queueRecorder();
  const base = testServices();
  const services = testServices({ outbound, mail, queues: { analysis: base.queues.analysis, deliveries: deliveries.queue }, ...overrides });
  /** Runs every queued message (and those they queue) until none is left; returns what ran. */
  const drain = async () => {
    const ran: Array<{ body: DeliveryMessage; delaySeconds: number }> = [];
    while (deliveries.messages.length) {
      const next = deliveries.messages.shift()!;
      ran.push(next);
      await runDelivery(services, next.body);
    }
    return ran;
  };
  return { services, outbound, mail, deliveries, drain };
}
