// Outgoing e-mail behind one interface. The embedded default keeps messages in the
// outbox_emails table (readable in development and by tests); an HTTP mail API adapter
// is chosen by MAIL_PROVIDER when configured. Code never branches on "test mode".
import { outboxEmails } from "../../../schema/events.ts";
import type { Db } from "../../lib/db.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";

export type MailMessage = { to: string[]; subject: string; text: string };

/** What became of a message, as the API reports it (e.g. an invitation's `welcome_email`). */
export type MailResult = { sent: boolean; error: string | null; skipped_reason: string | null };

export interface MailSender {
  send(message: MailMessage): Promise<MailResult>;
}

/** The embedded default: nothing leaves the machine; the message waits in the outbox. */
export class OutboxMailSender implements MailSender {
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
      createdAt: nowIso(),
    });
    return { sent: false, error: null, skipped_reason: "mail_not_configured" };
  }
}

export function mailSender(db: Db): MailSender {
  return new OutboxMailSender(db);
}
