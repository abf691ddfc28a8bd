// A velocity rule's breach, as the ledger sends it once an hour per key through the call-records
// queue: the account's webhook (event screening.breach) and its enabled alert channels.
import { and, eq } from "drizzle-orm";
import type { ScreeningBreachMessage } from "../../../durable-objects/call-ledger/call-ledger.ts";
import { alertChannels } from "../../../schema/alerts.ts";
import { describeError } from "../../lib/errors.ts";
import { postToChannel } from "../alerts/channels.ts";
import type { Services } from "../context.ts";
import { emitWebhookEvent } from "../webhooks/account-webhook.ts";

export async function alertScreeningBreach(s: Services, breach: ScreeningBreachMessage): Promise<void> {
  const data = {
    rule: breach.rule,
    scope: breach.scope,
    key: breach.key,
    action: breach.action,
    detail: breach.detail,
    call_id: breach.call_id,
    at: breach.at,
  };
  await emitWebhookEvent(s, breach.customer_id, "screening.breach", data, breach.call_id);
  const channels = await s.db
    .select()
    .from(alertChannels)
    .where(and(eq(alertChannels.customerId, breach.customer_id), eq(alertChannels.enabled, true)));
  const text = `[Call Shield] Screening rule ${breach.rule} (${breach.action}): ${breach.detail}`;
  for (const channel of channels) {
    const body = channel.kind === "slack" ? { text } : { type: "screening.breach", timestamp: breach.at, data };
    const sent = await postToChannel(s, channel, body);
    if (!sent.sent) console.error(`screening breach: alert to channel ${channel.id} not sent`, describeError(sent.error));
  }
}
