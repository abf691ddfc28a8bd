// How a schedule learns what its run did: the run's CLI check or test call, once it ended, hands
// its outcome here. An outcome that differs from the run before is alerted once, to the account's
// enabled alert channels and its webhook (event schedule.outcome_changed).
import { and, eq, isNull } from "drizzle-orm";
import { alertChannels } from "../../../schema/alerts.ts";
import { cliSchedules } from "../../../schema/cli-checks.ts";
import { describeError } from "../../lib/errors.ts";
import { nowIso } from "../../lib/time.ts";
import { postToChannel } from "../alerts/channels.ts";
import type { Services } from "../context.ts";
import { emitWebhookEvent } from "../webhooks/account-webhook.ts";

export type ScheduleRow = typeof cliSchedules.$inferSelect;

/** A test call's outcome as a schedule compares it: answered, or failed with its SIP code or error. */
export function testCallOutcome(t: { status: string; sipCode: number | null; error: string | null }): string | null {
  if (t.status === "done") return "answered";
  if (t.status === "failed") return `failed_${t.sipCode ?? t.error ?? "unknown"}`;
  return null;
}

/** A CLI check's outcome: its result (with the change for modified), or failed. */
export function cliCheckOutcome(c: { status: string; result: string | null; change: string | null }): string | null {
  if (c.status === "failed") return "failed";
  if (c.status !== "completed" || !c.result) return null;
  return c.change ? `${c.result}_${c.change}` : c.result;
}

/** The run `runId` ended with `outcome`: kept on its schedule (once), alerted when it changed. */
export async function scheduledRunEnded(s: Services, runId: string, outcome: string | null): Promise<void> {
  if (!outcome) return;
  const [schedule] = await s.db
    .update(cliSchedules)
    .set({ lastOutcome: outcome, updatedAt: nowIso() })
    .where(and(eq(cliSchedules.lastRunId, runId), isNull(cliSchedules.lastOutcome)))
    .returning();
  if (schedule?.previousOutcome && schedule.previousOutcome !== outcome) await alertChange(s, schedule, runId);
}

async function alertChange(s: Services, schedule: ScheduleRow, runId: string): Promise<void> {
  const what = schedule.kind === "cli_check" ? `Caller-ID check to ${schedule.country}` : `Route test to ${schedule.number}`;
  const detail = `${what} through destination ${schedule.destinationId}: ${schedule.previousOutcome} before, ${schedule.lastOutcome} now.`;
  const data = {
    schedule_id: schedule.id,
    kind: schedule.kind as "cli_check" | "test_call",
    destination_id: schedule.destinationId,
    previous_outcome: schedule.previousOutcome!,
    outcome: schedule.lastOutcome!,
    run_id: runId,
    detail,
  };
  await emitWebhookEvent(s, schedule.customerId, "schedule.outcome_changed", data, null);
  const channels = await s.db
    .select()
    .from(alertChannels)
    .where(and(eq(alertChannels.customerId, schedule.customerId), eq(alertChannels.enabled, true)));
  for (const channel of channels) {
    const body =
      channel.kind === "slack" ? { text: `[Call Shield] ${detail}` } : { type: "schedule.outcome_changed", timestamp: nowIso(), data };
    const sent = await postToChannel(s, channel, body);
    if (!sent.sent) console.error(`schedule ${schedule.id}: alert to channel ${channel.id} not sent`, describeError(sent.error));
  }
}
