// Alert rules: which verdicts (or poor-quality calls) are told to people, by e-mail and through
// connected channels, with throttling and attachments. Sending is services/alerts/alerts.ts.
import { asc, count, eq } from "drizzle-orm";
import { alertRules } from "../../../schema/alerts.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { MAX_ALERT_RULES, NO_DELIVERY, type CreateAlertRule, type UpdateAlertRule } from "../../resources/alerts.ts";
import { enabledChannels, postToChannel, requireOwnChannels } from "./channels.ts";
import { connectionTestBody } from "./messages.ts";
import type { Services } from "../context.ts";
import { Conflict, InvalidField, NotFound } from "../errors.ts";
import { owned, ownedRow } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";
import type { IdentityStatus, RuleName } from "../../../schema/screening.ts";

export type AlertRuleRow = typeof alertRules.$inferSelect;

const orNull = <T>(list: T[] | null | undefined) => (list && list.length > 0 ? list : null);
const setOrNull = <T>(list: T[] | null | undefined) => orNull(list && [...new Set(list)]);

export const alertRuleOut = (row: AlertRuleRow) => ({
  id: row.id,
  name: row.name,
  enabled: row.enabled,
  min_probability: row.minProbability,
  categories: row.categories,
  recommendations: row.recommendations,
  recipients: row.recipients,
  throttle_minutes: row.throttleMinutes,
  include_transcript: row.includeTranscript,
  include_sip_log: row.includeSipLog,
  include_pcap: row.includePcap,
  include_recording: row.includeRecording,
  trigger: row.trigger as "fraud" | "quality" | "screening",
  max_mos: row.maxMos,
  identity_statuses: row.identityStatuses as IdentityStatus[] | null,
  screening_rules: row.screeningRules as RuleName[] | null,
  channel_ids: row.channelIds,
  email_enabled: row.emailEnabled,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** The rules every rule must keep, whichever fields a write changed. */
function checkRule(row: Pick<AlertRuleRow, "emailEnabled" | "channelIds" | "trigger" | "maxMos">, changed: (field: string) => boolean) {
  if (!row.emailEnabled && !row.channelIds?.length) {
    throw new InvalidField(changed("channel_ids") && !changed("email_enabled") ? "channel_ids" : "email_enabled", NO_DELIVERY);
  }
  if (row.trigger === "quality" && row.maxMos === null) throw new InvalidField("max_mos", "max_mos is required when trigger is 'quality'");
}

export async function listAlertRules({ db }: Services, principal: Principal) {
  const rows = await db
    .select()
    .from(alertRules)
    .where(eq(alertRules.customerId, principal.customer.id))
    .orderBy(asc(alertRules.createdAt), asc(alertRules.id));
  return rows.map(alertRuleOut);
}

const findRule = (s: Services, customerId: string, ruleId: string) =>
  ownedRow(s.db, alertRules, customerId, ruleId, "alert rule").catch((err: unknown) => {
    throw err instanceof NotFound ? new NotFound("alert rule not found") : err;
  });

export async function createAlertRule(s: Services, principal: Principal, input: CreateAlertRule) {
  const customerId = principal.customer.id;
  const now = nowIso();
  const row: AlertRuleRow = {
    id: newId(),
    customerId,
    name: input.name,
    enabled: input.enabled,
    minProbability: input.min_probability,
    categories: orNull(input.categories),
    recommendations: orNull(input.recommendations),
    recipients: orNull(input.recipients),
    throttleMinutes: input.throttle_minutes,
    includeTranscript: input.include_transcript,
    includeSipLog: input.include_sip_log,
    includePcap: input.include_pcap,
    includeRecording: input.include_recording,
    trigger: input.trigger,
    maxMos: input.max_mos ?? null,
    identityStatuses: setOrNull(input.identity_statuses),
    screeningRules: setOrNull(input.screening_rules),
    channelIds: orNull(input.channel_ids && [...new Set(input.channel_ids)]),
    emailEnabled: input.email_enabled,
    createdAt: now,
    updatedAt: now,
  };
  checkRule(row, (field) => field in input);
  await requireOwnChannels(s, customerId, row.channelIds);
  const [{ n }] = (await s.db.select({ n: count() }).from(alertRules).where(eq(alertRules.customerId, customerId))) as [{ n: number }];
  if (n >= MAX_ALERT_RULES) throw new Conflict("Maximum number of alert rules reached");
  await s.db.insert(alertRules).values(row);
  return alertRuleOut(row);
}

export async function updateAlertRule(s: Services, principal: Principal, ruleId: string, input: UpdateAlertRule) {
  const customerId = principal.customer.id;
  const row = await findRule(s, customerId, ruleId);
  const changes: Partial<AlertRuleRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.min_probability !== undefined) changes.minProbability = input.min_probability;
  if (input.categories !== undefined) changes.categories = orNull(input.categories);
  if (input.recommendations !== undefined) changes.recommendations = orNull(input.recommendations);
  if (input.recipients !== undefined) changes.recipients = orNull(input.recipients);
  if (input.throttle_minutes !== undefined) changes.throttleMinutes = input.throttle_minutes;
  if (input.include_transcript !== undefined) changes.includeTranscript = input.include_transcript;
  if (input.include_sip_log !== undefined) changes.includeSipLog = input.include_sip_log;
  if (input.include_pcap !== undefined) changes.includePcap = input.include_pcap;
  if (input.include_recording !== undefined) changes.includeRecording = input.include_recording;
  if (input.trigger !== undefined) changes.trigger = input.trigger;
  if (input.max_mos !== undefined) changes.maxMos = input.max_mos;
  if (input.identity_statuses !== undefined) changes.identityStatuses = setOrNull(input.identity_statuses);
  if (input.screening_rules !== undefined) changes.screeningRules = setOrNull(input.screening_rules);
  if (input.channel_ids !== undefined) changes.channelIds = orNull(input.channel_ids && [...new Set(input.channel_ids)]);
  if (input.email_enabled !== undefined) changes.emailEnabled = input.email_enabled;
  const next = { ...row, ...changes };
  checkRule(next, (field) => field in input);
  if (input.channel_ids) await requireOwnChannels(s, customerId, next.channelIds);
  await s.db
    .update(alertRules)
    .set(changes)
    .where(owned(alertRules, customerId, row.id));
  return alertRuleOut(next);
}

export async function deleteAlertRule(s: Services, principal: Principal, ruleId: string): Promise<void> {
  const row = await findRule(s, principal.customer.id, ruleId);
  await s.db.delete(alertRules).where(owned(alertRules, principal.customer.id, row.id));
}

/** The rule's recipients, or the account's e-mail. */
export const recipientsOf = (rule: AlertRuleRow, accountEmail: string) => (rule.recipients?.length ? rule.recipients : [accountEmail]);

/**
 * POST /customer/alert-rules/{id}/test: a test e-mail to the recipients and a connection test to
 * each enabled channel, at once. 409 no_delivery when nothing can be tried: e-mail off, or on
 * while mail sending is not configured, and no channel.
 */
export async function testAlertRule(s: Services, principal: Principal, ruleId: string) {
  const rule = await findRule(s, principal.customer.id, ruleId);
  const channels = await enabledChannels(s, principal.customer.id, rule.channelIds);
  // Under npm start the outbox is read at /dev/mail (LOCAL_MAIL_VIEW): a test e-mail goes there, for a person to read.
  const localView = !s.mail.configured && s.config.LOCAL_MAIL_VIEW;
  const canEmail = rule.emailEnabled && (s.mail.configured || localView);
  if (!canEmail && channels.length === 0) throw new Conflict("no_delivery");
  const recipients = rule.emailEnabled ? recipientsOf(rule, principal.customer.email) : [];
  const started = Date.now();
  let email: { sent: boolean; error: string | null } = { sent: false, error: rule.emailEnabled ? "mail_not_configured" : null };
  if (canEmail) {
    const result = await s.mail.send({
      to: recipients,
      subject: `[Call Shield] Test alert: ${rule.name}`,
      text: `This is a test of the alert rule "${rule.name}". Alerts it sends will look like this message's sender and subject.\n`,
    });
    email = localView ? { sent: false, error: "local_mail_view" } : { sent: result.sent, error: result.error ?? result.skipped_reason };
  }
  const latency = Date.now() - started;
  const channelResults = await Promise.all(
    channels.map((channel) => postToChannel(s, channel, connectionTestBody(channel.kind, s.origin))),
  );
  return { sent: email.sent, error: email.error, latency_ms: latency, recipients, channels: channelResults };
}
