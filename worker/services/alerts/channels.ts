// Connected alert channels (our extension of the spec's alert rules): a Slack incoming webhook or
// a generic JSON webhook. The URL carries the channel's token, so it is write-only: sealed with
// AES-GCM bound to the row, only its host is shown. Posting checks the URL again each time
// (services/outbound-guard.ts) and never follows a redirect.
import { and, asc, count, eq, inArray } from "drizzle-orm";
import { alertChannels } from "../../../schema/alerts.ts";
import { describeError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { decryptSecret, encryptSecret } from "../../lib/secrets.ts";
import { nowIso } from "../../lib/time.ts";
import { MAX_ALERT_CHANNELS, type CreateAlertChannel, type UpdateAlertChannel } from "../../resources/alerts.ts";
import type { Services } from "../context.ts";
import { connectionTestBody } from "./messages.ts";
import { Conflict, InvalidField } from "../errors.ts";
import { checkDeliveryUrl, checkUrlForm } from "../outbound-guard.ts";
import { owned, ownedRow } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";

export type ChannelRow = typeof alertChannels.$inferSelect;

const CHANNEL_TIMEOUT_MS = 5_000;

const channelOut = (row: ChannelRow) => ({
  id: row.id,
  kind: row.kind as "slack" | "webhook",
  label: row.label,
  enabled: row.enabled,
  url_host: typeof row.config?.url_host === "string" ? row.config.url_host : null,
  url_set: row.secretEnc !== null,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const urlContext = (id: string) => `alert_channel:${id}:url`;

async function sealedUrl(s: Services, id: string, url: string) {
  const form = checkUrlForm(url, s.config.OUTBOUND_ALLOW_LOOPBACK);
  if (!form.ok) throw new InvalidField("url", urlProblem(form.error));
  return { secretEnc: await encryptSecret(s.config.ENCRYPTION_KEY, url, urlContext(id)), config: { url_host: form.url.host } };
}

const urlProblem = (error: string) =>
  ({
    url_invalid: "url must be an absolute URL",
    url_not_https: "url must use https",
    url_has_credentials: "url must not carry a user name or password",
    url_private_address: "url must lead to a public address",
  })[error] ?? error;

export async function listAlertChannels({ db }: Services, principal: Principal) {
  const rows = await db
    .select()
    .from(alertChannels)
    .where(eq(alertChannels.customerId, principal.customer.id))
    .orderBy(asc(alertChannels.createdAt), asc(alertChannels.id));
  return rows.map(channelOut);
}

export const channelOfAccount = (s: Services, customerId: string, channelId: string) =>
  ownedRow(s.db, alertChannels, customerId, channelId, "Alert channel");

export async function createAlertChannel(s: Services, principal: Principal, input: CreateAlertChannel) {
  const customerId = principal.customer.id;
  const id = newId();
  const sealed = await sealedUrl(s, id, input.url);
  const [{ n }] = (await s.db.select({ n: count() }).from(alertChannels).where(eq(alertChannels.customerId, customerId))) as [
    { n: number },
  ];
  if (n >= MAX_ALERT_CHANNELS) throw new Conflict("Maximum number of alert channels reached");
  const now = nowIso();
  const row: ChannelRow = {
    id,
    customerId,
    kind: input.kind,
    label: input.label ? input.label : null,
    ...sealed,
    enabled: input.enabled,
    createdAt: now,
    updatedAt: now,
  };
  await s.db.insert(alertChannels).values(row);
  return channelOut(row);
}

export async function updateAlertChannel(s: Services, principal: Principal, channelId: string, input: UpdateAlertChannel) {
  const row = await channelOfAccount(s, principal.customer.id, channelId);
  const changes: Partial<ChannelRow> = { updatedAt: nowIso() };
  if (input.label !== undefined) changes.label = input.label ? input.label : null;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.url !== undefined) Object.assign(changes, await sealedUrl(s, row.id, input.url));
  await s.db
    .update(alertChannels)
    .set(changes)
    .where(owned(alertChannels, principal.customer.id, row.id));
  return channelOut({ ...row, ...changes });
}

/** Rules that name the channel keep the id; delivery skips a channel that is gone. */
export async function deleteAlertChannel(s: Services, principal: Principal, channelId: string): Promise<void> {
  const row = await channelOfAccount(s, principal.customer.id, channelId);
  await s.db.delete(alertChannels).where(owned(alertChannels, principal.customer.id, row.id));
}

/** Every id must be a channel of the account's own (422 naming channel_ids otherwise). */
export async function requireOwnChannels(s: Services, customerId: string, ids: string[] | null | undefined): Promise<void> {
  const wanted = [...new Set(ids ?? [])];
  if (wanted.length === 0) return;
  const found = await s.db
    .select({ id: alertChannels.id })
    .from(alertChannels)
    .where(and(eq(alertChannels.customerId, customerId), inArray(alertChannels.id, wanted)));
  if (found.length !== wanted.length) throw new InvalidField("channel_ids", "channel_ids must name alert channels of this account");
}

/** The enabled channels among `ids`, in the order given. */
export async function enabledChannels(s: Services, customerId: string, ids: string[] | null): Promise<ChannelRow[]> {
  if (!ids?.length) return [];
  const rows = await s.db
    .select()
    .from(alertChannels)
    .where(and(eq(alertChannels.customerId, customerId), inArray(alertChannels.id, ids), eq(alertChannels.enabled, true)));
  return ids.flatMap((id) => rows.filter((r) => r.id === id));
}

export type ChannelPostResult = { id: string; kind: string; label: string | null; sent: boolean; error: string | null; latency_ms: number };

/** Posts a JSON body to the channel's URL: sent on a 2xx answer. */
export async function postToChannel(s: Services, channel: ChannelRow, body: unknown): Promise<ChannelPostResult> {
  const started = Date.now();
  const result = (sent: boolean, error: string | null): ChannelPostResult => ({
    id: channel.id,
    kind: channel.kind,
    label: channel.label,
    sent,
    error,
    latency_ms: Date.now() - started,
  });
  const url = channel.secretEnc ? await decryptSecret(s.config.ENCRYPTION_KEY, channel.secretEnc, urlContext(channel.id)) : null;
  if (!url) return result(false, "channel_url_missing");
  const allowed = await checkDeliveryUrl(s, url);
  if (!allowed.ok) return result(false, allowed.error);
  try {
    const answer = await s.outbound.post({
      url,
      headers: { "content-type": "application/json", "user-agent": "call-shield-alerts/1" },
      body: JSON.stringify(body),
      timeoutMs: CHANNEL_TIMEOUT_MS,
    });
    return answer.status >= 200 && answer.status < 300 ? result(true, null) : result(false, `http_${answer.status}`);
  } catch (err) {
    return result(false, `unreachable: ${describeError(err)}`.slice(0, 200));
  }
}

export async function testAlertChannel(s: Services, principal: Principal, channelId: string) {
  const channel = await channelOfAccount(s, principal.customer.id, channelId);
  return postToChannel(s, channel, connectionTestBody(channel.kind, s.origin));
}
