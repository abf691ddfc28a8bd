// What the sections of Team and access share: the button of an action an administrator acting as
// the account may not take (disabled and marked), an inline "are you sure" step, and how a welcome
// e-mail's fate reads.
import { useId, type ButtonHTMLAttributes, type ReactNode } from "react";
import type { Schemas } from "../../api/client.ts";

export const NOT_WHILE_ACTING = "not while acting as the account";

/**
 * A button for an action the API refuses inside an impersonation (credentials, passkeys, members):
 * while an administrator acts as the account it is disabled and says why.
 */
export function GuardedButton({
  refused,
  children,
  ...button
}: ButtonHTMLAttributes<HTMLButtonElement> & { refused: boolean; children: ReactNode }) {
  const id = useId();
  const describedBy = [button["aria-describedby"], refused ? id : ""].filter(Boolean).join(" ") || undefined;
  return (
    <>
      <button type="button" {...button} disabled={button.disabled || refused} aria-describedby={describedBy}>
        {children}
      </button>
      {refused ? (
        <small id={id} className="team-refused">
          {NOT_WHILE_ACTING}
        </small>
      ) : null}
    </>
  );
}

/** The second step of a destructive action: what it does, then do it or keep things as they are. */
export function Confirm({
  children,
  action,
  onConfirm,
  onCancel,
  busy,
}: {
  children: ReactNode;
  action: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
}) {
  return (
    <div className="team-confirm" role="group" aria-label="Confirm">
      <p>{children}</p>
      <div className="actions">
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {action}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Keep it
        </button>
      </div>
    </div>
  );
}

type WelcomeEmail = Schemas["InviteResult"]["welcome_email"];

/** What became of the e-mail carrying a member's temporary password. */
export function welcomeEmailText(email: string, welcome: WelcomeEmail): string {
  if (!welcome) return `No welcome e-mail was sent to ${email}.`;
  if (welcome.sent) return `The welcome e-mail with a temporary password went to ${email}.`;
  if (welcome.error) return `The welcome e-mail to ${email} failed (${welcome.error}): send it again with "Resend invitation".`;
  if (welcome.skipped_reason === "mail_not_configured")
    return `No e-mail left this service (mail is not configured here): the welcome e-mail to ${email} waits in the service's outbox.`;
  return `The welcome e-mail to ${email} was not sent${welcome.skipped_reason ? ` (${welcome.skipped_reason.replace(/_/g, " ")})` : ""}.`;
}

/** A time, or "never" for something that has not happened yet. */
export const orNever = (iso: string | null | undefined, format: (iso: string) => string) => (iso ? format(iso) : "never");
