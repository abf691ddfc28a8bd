// Alert rules at the verdict seam. The listener only decides (which rules match, throttling)
// and claims the alert with one conditional insert; the sending (e-mail with attachments, each
// connected channel) runs from the delivery queue, so a slow mail service or channel never holds
// up the pipeline. One alert per rule and call, and at most one per rule in throttle_minutes: the
// claim row (alert_deliveries, channel_id null) is inserted only when no other alert of the rule
// is in the window, in the same statement that checks it, so racing verdicts cannot both send.
import { and, desc, eq, sql } from "drizzle-orm";
import { alertDeliveries, alertRules } from "../../../schema/alerts.ts";
import { analyses, calls, transcripts } from "../../../schema/calls.ts";
import { customers } from "../../../schema/identity.ts";
import { describeError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { MailAttachment } from "../../providers/mail/mail.ts";
import { enabledChannels, postToChannel } from "./channels.ts";
import { alertEmailText, alertSubject, jsonAlert, slackAlert, type AlertFacts } from "./messages.ts";
import { recipientsOf, type AlertRuleRow } from "./rules.ts";
import { ladderText, uploadedSipLog, type LadderMessage } from "../calls/sip-log.ts";
import { sipMessageOut, sipMessagesOf } from "../calls/records.ts";
import type { Services } from "../context.ts";
import type { VerdictEvent, VerdictListener } from "../analysis/verdicts.ts";
import { meetsScreeningConditions, screeningFoundSomething, screeningOut, type CallScreening } from "../calls/screening.ts";

type CallRow = typeof calls.$inferSelect;

export type AlertMessage = { type: "alert"; delivery_id: string };

const anyOf = (list: string[] | null, value: string) => !list?.length || list.includes(value);

/** Does the rule speak for this verdict (fraud) or this call (quality)? Screening rules speak before any verdict. */
export function ruleMatches(rule: AlertRuleRow, event: VerdictEvent, mos: number | null): boolean {
  if (!rule.enabled || rule.trigger === "screening") return false;
  if (!meetsScreeningConditions(rule, event.call.screening)) return false;
  if (rule.trigger === "quality") return rule.maxMos !== null && mos !== null && mos <= rule.maxMos;
  return (
    event.verdict.probability >= rule.minProbability &&
    anyOf(rule.categories, event.verdict.category) &&
    anyOf(rule.recommendations, event.verdict.recommendation)
  );
}

/**
 * Does a screening rule speak for this call's screening? Its conditions when it has some; else
 * any rule that flagged the call (an unverified caller ID alone is too common to alert on by default).
 */
export function screeningRuleMatches(rule: AlertRuleRow, call: CallScreening): boolean {
  if (!rule.enabled || rule.trigger !== "screening") return false;
  if (rule.identityStatuses?.length || rule.screeningRules?.length) return meetsScreeningConditions(rule, call);
  return call.screening?.flags.some((f) => f.action !== "off") ?? false;
}

/**
 * Claims the alert of `rule` for the call: a pending row, unless the rule already alerted for this
 * call, or (throttle_minutes > 0) alerted within the window. Returns the row id, or null.
 */
async function claimAlert(s: Services, rule: AlertRuleRow, callId: string, now: string): Promise<string | null> {
  const id = newId();
  const since = new Date(Date.parse(now) - rule.throttleMinutes * 60_000).toISOString();
  const inWindow =
    rule.throttleMinutes > 0 ? sql`OR (${alertDeliveries.createdAt} > ${since} AND ${alertDeliveries.status} != 'throttled')` : sql``;
  const result = await s.db.run(sql`
    INSERT INTO ${alertDeliveries} (id, customer_id, rule_id, call_id, channel_id, status, created_at)
    SELECT ${id}, ${rule.customerId}, ${rule.id}, ${callId}, NULL, 'pending', ${now}
    WHERE NOT EXISTS (
      SELECT 1 FROM ${alertDeliveries}
      WHERE ${alertDeliveries.customerId} = ${rule.customerId} AND ${alertDeliveries.ruleId} = ${rule.id}
        AND ${alertDeliveries.channelId} IS NULL
        AND ((${alertDeliveries.callId} = ${callId} AND ${alertDeliveries.status} != 'throttled') ${inWindow})
    )`);
  return result.meta.changes > 0 ? id : null;
}

async function alertedFor(s: Services, rule: AlertRuleRow, callId: string): Promise<boolean> {
  const row = await s.db
    .select({ id: alertDeliveries.id })
    .from(alertDeliveries)
    .where(and(eq(alertDeliveries.ruleId, rule.id), eq(alertDeliveries.callId, callId), sql`${alertDeliveries.status} != 'throttled'`))
    .get();
  return row !== undefined;
}

/** Matching rules claim their alert and queue it; a throttled one leaves a 'throttled' row. */
export async function alertsForVerdict(s: Services, event: VerdictEvent): Promise<string[]> {
  const rules = await s.db.select().from(alertRules).where(eq(alertRules.customerId, event.customerId));
  if (!rules.some((r) => r.enabled)) return [];
  const call = await s.db.select({ mos: calls.mos }).from(calls).where(eq(calls.id, event.callId)).get();
  return claimAlerts(
    s,
    rules.filter((r) => ruleMatches(r, event, call?.mos ?? null)),
    event.callId,
  );
}

type ScreenedRecord = Pick<
  typeof calls.$inferInsert,
  "id" | "customerId" | "attestation" | "identityStatus" | "identityReason" | "screening"
>;

/**
 * Call records arrived with their screening: for each call screening found something in, the
 * account's screening rules that speak for it claim their alert, as verdicts' do (one per rule and
 * call, throttle_minutes apart: a flood of flagged calls alerts once per window). The rules are
 * read once per account in the batch, and only for accounts with such a call. Returns the claims queued.
 */
export async function alertsForScreening(s: Services, records: ScreenedRecord[]): Promise<string[]> {
  const screened = records
    .filter((r): r is ScreenedRecord & { id: string } => typeof r.id === "string")
    .map((r) => ({
      id: r.id,
      customerId: r.customerId,
      ...screeningOut({ identityReason: null, attestation: null, identityStatus: null, screening: null, ...r }),
    }))
    .filter(screeningFoundSomething);
  const queued: string[] = [];
  for (const customerId of new Set(screened.map((c) => c.customerId))) {
    const rules = await s.db
      .select()
      .from(alertRules)
      .where(and(eq(alertRules.customerId, customerId), eq(alertRules.trigger, "screening"), eq(alertRules.enabled, true)));
    if (!rules.length) continue;
    for (const call of screened.filter((c) => c.customerId === customerId)) {
      queued.push(
        ...(await claimAlerts(
          s,
          rules.filter((r) => screeningRuleMatches(r, call)),
          call.id,
        )),
      );
    }
  }
  return queued;
}

async function claimAlerts(s: Services, rules: AlertRuleRow[], callId: string): Promise<string[]> {
  const queued: string[] = [];
  for (const rule of rules) {
    const now = nowIso();
    const claimed = await claimAlert(s, rule, callId, now);
    if (!claimed) {
      if (await alertedFor(s, rule, callId)) continue; // handed on twice
      await s.db.insert(alertDeliveries).values({
        id: newId(),
        customerId: rule.customerId,
        ruleId: rule.id,
        callId,
        channelId: null,
        status: "throttled",
        createdAt: now,
      });
      continue;
    }
    await s.queues.deliveries.send({ type: "alert", delivery_id: claimed } satisfies AlertMessage);
    queued.push(claimed);
  }
  return queued;
}

export function alertListener(s: Services): VerdictListener {
  return { name: "alert rules", onVerdict: async (event) => void (await alertsForVerdict(s, event)) };
}

// ---------------------------------------------------------------------------------------------
// Sending (the delivery queue's consumer)

/** Sends a claimed alert: e-mail, then each enabled channel. Safe to run twice: only a pending claim is sent. */
export async function sendAlert(s: Services, deliveryId: string): Promise<void> {
  const claim = await s.db.select().from(alertDeliveries).where(eq(alertDeliveries.id, deliveryId)).get();
  if (!claim || claim.status !== "pending") return;
  const finish = (status: "sent" | "failed", error: string | null) =>
    s.db
      .update(alertDeliveries)
      .set({ status, error })
      .where(and(eq(alertDeliveries.id, claim.id), eq(alertDeliveries.status, "pending")));
  const rule = await s.db.select().from(alertRules).where(eq(alertRules.id, claim.ruleId)).get();
  const call = claim.callId ? await s.db.select().from(calls).where(eq(calls.id, claim.callId)).get() : undefined;
  const customer = await s.db.select({ email: customers.email }).from(customers).where(eq(customers.id, claim.customerId)).get();
  if (!rule || !call || !customer) return void (await finish("failed", "the rule or the call is gone"));

  const facts = await factsOf(s, rule, call);
  const errors: string[] = [];
  let anySent = false;
  if (rule.emailEnabled) {
    try {
      const { attachments, notes } = await attachmentsOf(s, rule, call);
      const result = await s.mail.send({
        to: recipientsOf(rule, customer.email),
        subject: alertSubject(facts),
        text: alertEmailText(facts, notes),
        attachments,
      });
      if (result.error) errors.push(`email: ${result.error}`);
      else anySent = true;
    } catch (err) {
      errors.push(`email: ${describeError(err)}`);
    }
  }
  for (const channel of await enabledChannels(s, rule.customerId, rule.channelIds)) {
    const body = channel.kind === "slack" ? slackAlert(facts) : jsonAlert(facts, nowIso());
    const result = await postToChannel(s, channel, body);
    await s.db.insert(alertDeliveries).values({
      id: newId(),
      customerId: rule.customerId,
      ruleId: rule.id,
      callId: call.id,
      channelId: channel.id,
      status: result.sent ? "sent" : "failed",
      error: result.error,
      createdAt: nowIso(),
    });
    if (result.sent) anySent = true;
    else errors.push(`${channel.kind} ${channel.id}: ${result.error}`);
  }
  await finish(anySent || errors.length === 0 ? "sent" : "failed", errors.length ? errors.join("; ").slice(0, 1000) : null);
}

async function factsOf(s: Services, rule: AlertRuleRow, call: CallRow): Promise<AlertFacts> {
  const analysis = await s.db
    .select()
    .from(analyses)
    .where(and(eq(analyses.callId, call.id), eq(analyses.customerId, call.customerId)))
    .orderBy(desc(analyses.createdAt))
    .get();
  return {
    rule: { id: rule.id, name: rule.name, trigger: rule.trigger },
    call: {
      id: call.id,
      ani: call.ani,
      dialed: call.dialed,
      startedAt: call.startedAt,
      durationSec: call.durationSec,
      mos: call.mos,
      subCustomer: call.subCustomer,
    },
    screening: screeningOut(call),
    verdict: analysis ? { ...analysis, red_flags: analysis.redFlags ?? [] } : null,
    callUrl: `${s.origin}/api/calls/${call.id}`,
  };
}

type Candidate = { filename: string; contentType: string; size: number; read(): Promise<Uint8Array>; link: string };

/**
 * The files the rule asks for, in order (transcript, SIP log, captures, recording), as long as
 * they fit in ALERT_ATTACHMENT_MAX_BYTES together; each one that does not is named in a note
 * with the link to fetch it from the API instead.
 */
async function attachmentsOf(s: Services, rule: AlertRuleRow, call: CallRow): Promise<{ attachments: MailAttachment[]; notes: string[] }> {
  const base = `${s.origin}/api/calls/${call.id}`;
  const candidates: Candidate[] = [];
  const encoder = new TextEncoder();
  const text = (filename: string, content: string, link: string): Candidate => {
    const bytes = encoder.encode(content);
    return { filename, contentType: "text/plain; charset=utf-8", size: bytes.byteLength, read: async () => bytes, link };
  };
  const stored = async (key: string, filename: string, contentType: string, link: string): Promise<Candidate | null> => {
    const head = await s.media.head(key);
    if (!head) return null;
    return {
      filename,
      contentType,
      size: head.size,
      link,
      read: async () => new Uint8Array(await (await s.media.get(key))!.arrayBuffer()),
    };
  };
  if (rule.includeTranscript) {
    const transcript = await s.db
      .select()
      .from(transcripts)
      .where(eq(transcripts.callId, call.id))
      .orderBy(desc(transcripts.createdAt))
      .get();
    if (transcript) candidates.push(text("transcript.txt", transcript.text, `${base}/transcript`));
  }
  if (rule.includeSipLog) {
    const uploaded = await uploadedSipLog(s, call);
    const messages: LadderMessage[] =
      uploaded?.messages ?? (await sipMessagesOf(s.db, call)).map((row) => ({ ...sipMessageOut(row), raw: row.raw }));
    if (messages.length) candidates.push(text("sip-log.txt", ladderText(messages), `${base}/sip-log`));
  }
  if (rule.includePcap) {
    for (const key of call.recordingPcapPaths ?? []) {
      const name = key.split("/").pop() ?? "capture.pcap";
      const file = await stored(key, name, "application/vnd.tcpdump.pcap", `${base}/pcap`);
      if (file) candidates.push(file);
    }
  }
  if (rule.includeRecording && call.recordingWavPath) {
    const file = await stored(call.recordingWavPath, "recording.wav", "audio/wav", `${base}/recording`);
    if (file) candidates.push(file);
  }
  let room = s.config.ALERT_ATTACHMENT_MAX_BYTES;
  const attachments: MailAttachment[] = [];
  const notes: string[] = [];
  for (const file of candidates) {
    if (file.size <= room) {
      attachments.push({ filename: file.filename, contentType: file.contentType, content: await file.read() });
      room -= file.size;
    } else {
      notes.push(`${file.filename} (${file.size} bytes) is over the e-mail size limit; fetch it signed in: ${file.link}`);
    }
  }
  return { attachments, notes };
}
