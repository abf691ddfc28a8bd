// Outgoing e-mail behind one interface. The embedded default keeps messages in the
// outbox_emails table (readable in development and by tests); an HTTP mail API adapter
// is chosen by MAIL_PROVIDER when configured. Code never branches on "test mode".
import { outboxEmails } from "../../../schema/events.ts";
import type { Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";

/** A file sent with a message (alert attachments: transcript, SIP log, capture, recording). */
export type MailAttachment = { filename: string; contentType: string; content: Uint8Array };

export type MailMessage = { to: string[]; subject: string; text: string; attachments?: MailAttachment[] };

/** What became of a message, as the API reports it (e.g. an invitation's `welcome_email`). */
export type MailResult = { sent: boolean; error: string | null; skipped_reason: string | null };

export interface MailSender {
  /** False when messages cannot leave (the embedded outbox): an alert test then has nothing to try by e-mail. */
  readonly configured: boolean;
  send(message: MailMessage): Promise<MailResult>;
}

/** The embedded default: nothing leaves the machine; the message waits in the outbox. */
export class OutboxMailSender implements MailSender {
  readonly configured = false;
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async send(message: MailMessage): Promise<MailResult> {
    await this.db.insert(outboxEmails).values({
      id: newId(),
      toAddress: message.to.join(","),
      subject: message.subject,
      text: message.text,
      // Names, types and sizes only: the bytes stay where they came from (R2, D1).
      attachments: message.attachments?.length
        ? message.attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, size: a.content.byteLength }))
        : null,
      createdAt: nowIso(),
    });
    return { sent: false, error: null, skipped_reason: "mail_not_configured" };
  }
}

export function mailSender(db: Db): MailSender {
  return new OutboxMailSender(db);
}
