// The embedded mail adapter's outbox: kept here (the adapter hands each message to keepInOutbox), and
// read back: what `npm start`'s local mail view
// (worker/pages/mail.ts) and `npm run mail` show a developer. Readable only while the outbox is
// the mail provider and LOCAL_MAIL_VIEW is on (never in a deployed Worker); the page also
// insists on a loopback request.
import { desc, sql } from "drizzle-orm";
import { outboxEmails } from "../../../schema/events.ts";
import type { Config } from "../../env.ts";
import type { Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { MailMessage } from "../../providers/mail/mail.ts";
import type { Services } from "../context.ts";
import { NotFound } from "../errors.ts";

export const OUTBOX_PAGE_DEFAULT = 50;
export const OUTBOX_PAGE_MAX = 500;

export type OutboxMessage = { id: string; to: string[]; subject: string; text: string; created_at: string };

/** Keeps a message the embedded mail adapter did not send: names, types and sizes of its attachments, not their bytes. */
export async function keepInOutbox(db: Db, message: MailMessage): Promise<void> {
  await db.insert(outboxEmails).values({
    id: newId(),
    toAddress: message.to.join(","),
    subject: message.subject,
    text: message.text,
    attachments: message.attachments?.length
      ? message.attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, size: a.content.byteLength }))
      : null,
    createdAt: nowIso(),
  });
}

/** True when this Worker may show its outbox: the embedded outbox delivers mail and the local view is on. */
export function localMailViewEnabled(config: Config): boolean {
  return config.LOCAL_MAIL_VIEW && config.MAIL_PROVIDER === "outbox";
}

/** The latest messages kept in the outbox, newest first, optionally only those to one address. */
export async function latestOutboxMail(s: Services, input: { to?: string; limit?: number }): Promise<OutboxMessage[]> {
  if (!localMailViewEnabled(s.config)) throw new NotFound();
  const limit = Math.min(Math.max(1, Math.trunc(input.limit ?? OUTBOX_PAGE_DEFAULT)), OUTBOX_PAGE_MAX);
  const to = input.to?.trim().toLowerCase();
  const rows = await s.db
    .select()
    .from(outboxEmails)
    // Recipients are stored comma-separated: match one entry of the list.
    .where(to ? sql`',' || ${outboxEmails.toAddress} || ',' LIKE ${`%,${escapeLike(to)},%`} ESCAPE '\\'` : undefined)
    .orderBy(desc(outboxEmails.createdAt), desc(sql`rowid`))
    .limit(limit)
    .all();
  return rows.map((row) => ({
    id: row.id,
    to: row.toAddress.split(",").filter(Boolean),
    subject: row.subject,
    text: row.text ?? "",
    created_at: row.createdAt,
  }));
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);
