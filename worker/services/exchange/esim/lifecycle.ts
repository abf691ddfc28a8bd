// The eSIM lifecycle after GSMA SGP.22 (ES9+ handleNotification, reported by the SM-DP+):
//   RELEASED --download--> DOWNLOADED --install--> INSTALLED --enable--> ENABLED
//   ENABLED --disable--> DISABLED --enable--> ENABLED
//   INSTALLED | ENABLED | DISABLED --delete--> DELETED (final)
// A notification may also carry the data used so far (`data_used_bytes`, a cumulative counter:
// a lower value than the one stored is ignored, so late reports change nothing); operation
// `usage` carries only that. Every notification is logged in esim_notifications, refused ones
// with their error. A repeated seq_number for the same ICCID is acknowledged without effect.
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { esimNotifications, esims } from "../../../../schema/exchange.ts";
import { nowIso } from "../../../lib/time.ts";
import { conflict, unknown } from "../errors.ts";
import type { ExchangeServices } from "../context.ts";

export const ESIM_STATUSES = ["RELEASED", "DOWNLOADED", "INSTALLED", "ENABLED", "DISABLED", "DELETED"] as const;
export type EsimStatus = (typeof ESIM_STATUSES)[number];

export const TRANSITIONS = {
  download: { to: "DOWNLOADED", from: ["RELEASED"] },
  install: { to: "INSTALLED", from: ["DOWNLOADED"] },
  enable: { to: "ENABLED", from: ["INSTALLED", "DISABLED"] },
  disable: { to: "DISABLED", from: ["ENABLED"] },
  delete: { to: "DELETED", from: ["INSTALLED", "ENABLED", "DISABLED"] },
} as const satisfies Record<string, { to: EsimStatus; from: readonly EsimStatus[] }>;

export type Operation = keyof typeof TRANSITIONS | "usage";
export const OPERATIONS = [...(Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[]), "usage"] as const;

export type Notification = {
  iccid: string;
  operation: Operation;
  eid?: string | undefined;
  seq_number?: number | undefined;
  data_used_bytes?: number | undefined;
};

export type NotificationResult = { iccid: string; esim_status: EsimStatus; changed: boolean; duplicate: boolean };

async function log(s: ExchangeServices, n: Notification, receivedAt: string, error: string | null) {
  await s.db.insert(esimNotifications).values({
    iccid: n.iccid,
    eid: n.eid ?? null,
    seqNumber: n.seq_number ?? null,
    operation: n.operation,
    payload: { ...n },
    receivedAt,
    processedAt: error ? null : nowIso(),
    error,
  });
}

async function currentStatus(s: ExchangeServices, iccid: string): Promise<EsimStatus | null> {
  const [row] = await s.db.select({ status: esims.status }).from(esims).where(eq(esims.iccid, iccid));
  return (row?.status as EsimStatus | undefined) ?? null;
}

export async function handleNotification(s: ExchangeServices, n: Notification): Promise<NotificationResult> {
  const receivedAt = nowIso();
  const before = await currentStatus(s, n.iccid);
  if (!before) {
    await log(s, n, receivedAt, "unknown ICCID");
    throw unknown("iccid", "ICCID");
  }
  if (n.seq_number !== undefined) {
    const [seen] = await s.db
      .select({ id: esimNotifications.id })
      .from(esimNotifications)
      .where(
        and(eq(esimNotifications.iccid, n.iccid), eq(esimNotifications.seqNumber, n.seq_number), isNotNull(esimNotifications.processedAt)),
      )
      .limit(1);
    if (seen) return { iccid: n.iccid, esim_status: before, changed: false, duplicate: true };
  }

  const at = nowIso();
  const usage = n.data_used_bytes === undefined ? {} : { dataUsedBytes: sql`max(${esims.dataUsedBytes}, ${n.data_used_bytes})` };
  if (n.operation === "usage") {
    await s.db
      .update(esims)
      .set({ ...usage, updatedAt: at })
      .where(eq(esims.iccid, n.iccid));
    await log(s, n, receivedAt, null);
    return { iccid: n.iccid, esim_status: before, changed: false, duplicate: false };
  }

  const { to, from } = TRANSITIONS[n.operation];
  const enabling = to === "ENABLED";
  const result = await s.db
    .update(esims)
    .set({
      status: to,
      statusMessage: null,
      ...(n.eid !== undefined && { eid: n.eid }),
      ...usage,
      // Validity waiting for first use (on_first_use top-ups) starts when the profile is enabled.
      ...(enabling && {
        expiresAt: sql`CASE WHEN ${esims.pendingValidityDays} > 0 THEN strftime('%Y-%m-%dT%H:%M:%fZ', max(coalesce(${esims.expiresAt}, ${at}), ${at}), '+' || ${esims.pendingValidityDays} || ' days') ELSE ${esims.expiresAt} END`,
        pendingValidityDays: 0,
      }),
      updatedAt: at,
    })
    .where(and(eq(esims.iccid, n.iccid), inArray(esims.status, [...from])));
  if (result.meta.changes > 0) {
    await log(s, n, receivedAt, null);
    return { iccid: n.iccid, esim_status: to, changed: true, duplicate: false };
  }
  const now = await currentStatus(s, n.iccid);
  if (now === to) {
    // Already there (a retried notification without a sequence number): nothing to do.
    if (n.data_used_bytes !== undefined)
      await s.db
        .update(esims)
        .set({ ...usage, updatedAt: at })
        .where(eq(esims.iccid, n.iccid));
    await log(s, n, receivedAt, null);
    return { iccid: n.iccid, esim_status: to, changed: false, duplicate: false };
  }
  const error = `cannot ${n.operation} an eSIM that is ${now}`;
  await log(s, n, receivedAt, error);
  throw conflict("operation", error);
}
