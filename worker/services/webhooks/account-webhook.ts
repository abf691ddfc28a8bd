// The account webhook: one URL and signing secret per account (the secret write-only), events
// signed as Standard Webhooks says (services/webhooks/signing.ts), delivered from the delivery
// queue with retries and exponential backoff over about a day, every attempt logged. At least
// once: a receiver de-duplicates by webhook-id (the event id). The URL is checked before every
// attempt (services/outbound-guard.ts); redirects are not followed.
import { and, asc, count, desc, eq } from "drizzle-orm";
import { webhookDeliveries, webhookDeliveryAttempts } from "../../../schema/alerts.ts";
import { customers } from "../../../schema/identity.ts";
import { describeError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { decryptSecret, encryptSecret } from "../../lib/secrets.ts";
import { addSeconds, nowIso } from "../../lib/time.ts";
import type { PutWebhook, WebhookEventKind } from "../../resources/webhook.ts";
import type { ControlCreated } from "../trunk/automation.ts";
import type { Services } from "../context.ts";
import { InvalidField } from "../errors.ts";
import { checkDeliveryUrl, checkUrlForm } from "../outbound-guard.ts";
import { ownedRow } from "../owned.ts";
import type { Principal } from "../identity/principal.ts";
import type { VerdictEvent, VerdictListener } from "../analysis/verdicts.ts";
import { verdictWire } from "../analysis/verdict-wire.ts";
import { isUsableSecret, signedHeaders } from "./signing.ts";

type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type CustomerRow = typeof customers.$inferSelect;

/** Seconds to wait after each failed attempt (WEBHOOK_RETRY_DELAYS_SEC): by default 10 attempts over about 23.6 hours. */
const retryDelays = (s: Services) => s.config.WEBHOOK_RETRY_DELAYS_SEC;
const ATTEMPT_TIMEOUT_MS = 10_000;

export type WebhookMessage = { type: "webhook"; delivery_id: string };

const secretContext = (customerId: string) => `customer:${customerId}:webhook_secret`;

const webhookOut = (customer: Pick<CustomerRow, "webhookUrl" | "webhookSecretEnc">) => ({
  url: customer.webhookUrl,
  secret_set: customer.webhookSecretEnc !== null,
});

async function accountOf(s: Services, customerId: string) {
  return s.db
    .select({ id: customers.id, webhookUrl: customers.webhookUrl, webhookSecretEnc: customers.webhookSecretEnc })
    .from(customers)
    .where(eq(customers.id, customerId))
    .get();
}

/** The account's URL and secret, or null when either is missing. */
async function endpointOf(s: Services, customerId: string): Promise<{ url: string; secret: string } | null> {
  const account = await accountOf(s, customerId);
  if (!account?.webhookUrl || !account.webhookSecretEnc) return null;
  const secret = await decryptSecret(s.config.ENCRYPTION_KEY, account.webhookSecretEnc, secretContext(customerId));
  return secret ? { url: account.webhookUrl, secret } : null;
}

// ---------------------------------------------------------------------------------------------
// Settings

export async function getWebhook(s: Services, principal: Principal) {
  const account = await accountOf(s, principal.customer.id);
  return webhookOut(account ?? { webhookUrl: null, webhookSecretEnc: null });
}

/** Absent fields stay as they are, null removes; a URL needs a secret (422 webhook_secret_required). */
export async function putWebhook(s: Services, principal: Principal, input: PutWebhook) {
  const customerId = principal.customer.id;
  const account = (await accountOf(s, customerId))!;
  const url = input.url === undefined ? account.webhookUrl : input.url || null;
  if (url && input.url !== undefined) {
    const form = checkUrlForm(url, s.config.OUTBOUND_ALLOW_LOOPBACK);
    if (!form.ok)
      throw new InvalidField("url", form.error === "url_not_https" ? "url must use https" : `url refused: ${form.error}`, form.error);
  }
  let secretEnc = account.webhookSecretEnc;
  if (input.secret === null) secretEnc = null;
  else if (input.secret !== undefined) {
    if (!isUsableSecret(input.secret)) throw new InvalidField("secret", "a whsec_ secret must be base64 of at least 16 bytes");
    secretEnc = await encryptSecret(s.config.ENCRYPTION_KEY, input.secret, secretContext(customerId));
  }
  if (url && !secretEnc) throw new InvalidField("secret", "webhook_secret_required", "webhook_secret_required");
  await s.db.update(customers).set({ webhookUrl: url, webhookSecretEnc: secretEnc }).where(eq(customers.id, customerId));
  return webhookOut({ webhookUrl: url, webhookSecretEnc: secretEnc });
}

// ---------------------------------------------------------------------------------------------
// Events

const payloadOf = (kind: WebhookEventKind, data: unknown, at: string) => JSON.stringify({ type: kind, timestamp: at, data });

async function newDelivery(s: Services, customerId: string, url: string, kind: WebhookEventKind, data: unknown, callId: string | null) {
  const now = nowIso();
  const row: DeliveryRow = {
    id: newId(),
    customerId,
    eventId: `msg_${newId().replace(/-/g, "")}`,
    kind,
    callId,
    url,
    status: "pending",
    statusCode: null,
    attempts: 0,
    error: null,
    latencyMs: null,
    payload: payloadOf(kind, data, now),
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
    deliveredAt: null,
  };
  await s.db.insert(webhookDeliveries).values(row);
  return row;
}

/** Queues an event for the account's webhook; nothing when the account has none. */
export async function emitWebhookEvent(s: Services, customerId: string, kind: WebhookEventKind, data: unknown, callId: string | null) {
  const account = await accountOf(s, customerId);
  if (!account?.webhookUrl || !account.webhookSecretEnc) return null;
  const row = await newDelivery(s, customerId, account.webhookUrl, kind, data, callId);
  await s.queues.deliveries.send({ type: "webhook", delivery_id: row.id } satisfies WebhookMessage);
  return row.id;
}

const callRef = (event: VerdictEvent) => ({
  id: event.callId,
  ani: event.call.ani,
  dialed: event.call.dialed,
  started_at: event.call.startedAt,
  destination_id: event.call.destinationId,
  attestation: event.call.screening?.attestation ?? null,
  identity_status: event.call.screening?.identity_status ?? null,
  identity_reason: event.call.screening?.identity_reason ?? null,
});

export function webhookListener(s: Services): VerdictListener {
  return {
    name: "webhook",
    async onVerdict(event) {
      const v = event.verdict;
      await emitWebhookEvent(
        s,
        event.customerId,
        "call.analyzed",
        {
          call: callRef(event),
          verdict: { analysis_id: event.analysisId, ...verdictWire(v), keywords: v.keywords },
          route_alert: event.routeAlert,
          screening: event.call.screening?.screening ?? null,
        },
        event.callId,
      );
      if (event.routeAlert) {
        await emitWebhookEvent(
          s,
          event.customerId,
          "call.route_alert",
          { call: callRef(event), route_alert: event.routeAlert },
          event.callId,
        );
      }
    },
  };
}

/** automation.number_controlled, when a verdict puts a number under control. */
export async function emitNumberControlled(s: Services, { control, event }: ControlCreated): Promise<void> {
  await emitWebhookEvent(s, event.customerId, "automation.number_controlled", { control, call_id: event.callId }, event.callId);
}

// ---------------------------------------------------------------------------------------------
// Attempts

type AttemptOutcome = { delivered: boolean; statusCode: number | null; error: string | null; latencyMs: number; url: string | null };

/** One signed POST of the delivery's payload to the account's current URL. */
async function tryOnce(s: Services, row: DeliveryRow): Promise<AttemptOutcome> {
  const started = Date.now();
  const outcome = (statusCode: number | null, error: string | null, url: string | null): AttemptOutcome => ({
    delivered: statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    latencyMs: Date.now() - started,
    url,
  });
  const endpoint = await endpointOf(s, row.customerId);
  if (!endpoint) return outcome(null, "webhook_not_configured", null);
  const allowed = await checkDeliveryUrl(s, endpoint.url);
  if (!allowed.ok) return outcome(null, allowed.error, endpoint.url);
  const body = row.payload ?? payloadOf(row.kind as WebhookEventKind, null, row.createdAt);
  try {
    const answer = await s.outbound.post({
      url: endpoint.url,
      headers: await signedHeaders(endpoint.secret, row.eventId, body),
      body,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    const ok = answer.status >= 200 && answer.status < 300;
    return outcome(answer.status, ok ? null : `http_${answer.status}`, endpoint.url);
  } catch (err) {
    return outcome(null, `unreachable: ${describeError(err)}`.slice(0, 200), endpoint.url);
  }
}

/**
 * Makes attempt `attempts + 1` of a pending delivery (the queue consumer's work). The attempt's
 * log row is inserted first and is unique per attempt number, so a doubled message cannot POST
 * twice. A failure schedules the next attempt on the queue while WEBHOOK_RETRY_DELAYS_SEC has one.
 */
export async function attemptWebhookDelivery(s: Services, deliveryId: string, options: { retry: boolean } = { retry: true }) {
  const row = await s.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  if (!row || (options.retry && row.status !== "pending")) return row ?? null;
  const attempt = row.attempts + 1;
  const claimed = await s.db
    .insert(webhookDeliveryAttempts)
    .values({ id: newId(), customerId: row.customerId, deliveryId: row.id, attempt, createdAt: nowIso() })
    .onConflictDoNothing()
    .returning({ id: webhookDeliveryAttempts.id })
    .get();
  if (!claimed) return row;
  const result = await tryOnce(s, row);
  const now = nowIso();
  await s.db
    .update(webhookDeliveryAttempts)
    .set({ url: result.url, statusCode: result.statusCode, error: result.error, latencyMs: result.latencyMs })
    .where(eq(webhookDeliveryAttempts.id, claimed.id));
  const delays = retryDelays(s);
  const retryIn = options.retry && !result.delivered && attempt <= delays.length ? delays[attempt - 1]! : null;
  const patch: Partial<DeliveryRow> = {
    attempts: attempt,
    statusCode: result.statusCode,
    error: result.error,
    latencyMs: result.latencyMs,
    url: result.url ?? row.url,
    status: result.delivered ? "delivered" : retryIn !== null ? "pending" : "failed",
    nextAttemptAt: retryIn !== null ? addSeconds(now, retryIn) : null,
    deliveredAt: result.delivered ? now : row.deliveredAt,
    updatedAt: now,
  };
  await s.db.update(webhookDeliveries).set(patch).where(eq(webhookDeliveries.id, row.id));
  if (retryIn !== null)
    await s.queues.deliveries.send({ type: "webhook", delivery_id: row.id } satisfies WebhookMessage, { delaySeconds: retryIn });
  return { ...row, ...patch };
}

/** POST /customer/webhook/test: one signed webhook.test event now, never retried; always an answer. */
export async function testWebhook(s: Services, principal: Principal) {
  const endpoint = await endpointOf(s, principal.customer.id);
  if (!endpoint) return { delivered: false, status_code: null, error: "webhook_not_configured", latency_ms: 0 };
  const row = await newDelivery(
    s,
    principal.customer.id,
    endpoint.url,
    "webhook.test",
    { account_id: principal.customer.id, message: "A test event from Call Shield: your webhook receives and verifies events." },
    null,
  );
  const done = (await attemptWebhookDelivery(s, row.id, { retry: false }))!;
  return { delivered: done.status === "delivered", status_code: done.statusCode, error: done.error, latency_ms: done.latencyMs ?? 0 };
}

// ---------------------------------------------------------------------------------------------
// The delivery log (ours)

const deliveryOut = (row: DeliveryRow) => ({
  id: row.id,
  event_id: row.eventId,
  kind: row.kind as WebhookEventKind,
  call_id: row.callId,
  url: row.url,
  status: row.status as "pending" | "delivered" | "failed",
  status_code: row.statusCode,
  attempts: row.attempts,
  error: row.error,
  latency_ms: row.latencyMs,
  next_attempt_at: row.nextAttemptAt,
  created_at: row.createdAt,
  delivered_at: row.deliveredAt,
});

export async function listWebhookDeliveries(s: Services, principal: Principal, params: PageParams) {
  const where = eq(webhookDeliveries.customerId, principal.customer.id);
  const [rows, [total]] = await Promise.all([
    s.db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(params.limit)
      .offset(params.offset),
    s.db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  return page(rows.map(deliveryOut), total?.n ?? 0, params);
}

async function withAttempts(s: Services, row: DeliveryRow) {
  const attempts = await s.db
    .select()
    .from(webhookDeliveryAttempts)
    .where(and(eq(webhookDeliveryAttempts.deliveryId, row.id), eq(webhookDeliveryAttempts.customerId, row.customerId)))
    .orderBy(asc(webhookDeliveryAttempts.attempt));
  return {
    ...deliveryOut(row),
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      url: a.url,
      status_code: a.statusCode,
      error: a.error,
      latency_ms: a.latencyMs,
      created_at: a.createdAt,
    })),
  };
}

const deliveryOfAccount = (s: Services, principal: Principal, deliveryId: string) =>
  ownedRow(s.db, webhookDeliveries, principal.customer.id, deliveryId, "Webhook delivery");

export async function getWebhookDelivery(s: Services, principal: Principal, deliveryId: string) {
  return withAttempts(s, await deliveryOfAccount(s, principal, deliveryId));
}

/** Sends the same event (same webhook-id and body) once more, now, whatever became of it before. */
export async function redeliverWebhook(s: Services, principal: Principal, deliveryId: string) {
  const row = await deliveryOfAccount(s, principal, deliveryId);
  const done = (await attemptWebhookDelivery(s, row.id, { retry: false }))!;
  return withAttempts(s, done);
}
