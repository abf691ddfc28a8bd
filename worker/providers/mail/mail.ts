// Outgoing e-mail behind one interface. The embedded default keeps messages in the
// outbox_emails table (readable in development and by tests); an HTTP mail API adapter
// is chosen by MAIL_PROVIDER when configured. Code never branches on "test mode".

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

/** Where the embedded default keeps a message: the outbox table, written by its service (services/alerts/outbox.ts). */
export type Outbox = (message: MailMessage) => Promise<void>;

/** The embedded default: nothing leaves the machine; the message waits in the outbox. */
export class OutboxMailSender implements MailSender {
  readonly configured = false;
  private readonly keep: Outbox;

  constructor(keep: Outbox) {
    this.keep = keep;
  }

  async send(message: MailMessage): Promise<MailResult> {
    await this.keep(message);
    return { sent: false, error: null, skipped_reason: "mail_not_configured" };
  }
}

export function mailSender(outbox: Outbox): MailSender {
  return new OutboxMailSender(outbox);
}
