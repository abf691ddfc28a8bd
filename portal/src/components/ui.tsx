// The small parts every page uses: loading and empty states, the API's error, form fields that
// show a 422's message beside them, verdict badges, a pager and a step that asks first.
import { useId, useState, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import { ApiError, errorMessage } from "../api/errors.ts";
import { riskLevel, words } from "../lib/format.ts";

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {errorMessage(error)}
    </p>
  );
}

/** The message of a 422 for this field, if the API named it. */
export const fieldError = (error: unknown, name: string) => (error instanceof ApiError ? (error.fields[name] ?? null) : null);

type FieldProps = { label: string; name: string; error?: unknown; hint?: ReactNode };

/** A field's hint and its 422 message, below it (`${id}-hint` and `${id}-error`, for aria-describedby). */
export function FieldNotes({ id, hint, message }: { id: string; hint?: ReactNode; message: string | null }) {
  return (
    <>
      {hint ? (
        <small className="hint" id={`${id}-hint`}>
          {hint}
        </small>
      ) : null}
      {message ? (
        <small className="field-error" id={`${id}-error`} role="alert">
          {message}
        </small>
      ) : null}
    </>
  );
}

function FieldShell({ label, name, error, hint, id, children }: FieldProps & { id: string; children: ReactNode }) {
  const message = fieldError(error, name);
  return (
    <div className={message ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      {children}
      <FieldNotes id={id} hint={hint} message={message} />
    </div>
  );
}

const describedBy = (id: string, props: FieldProps) =>
  [props.hint ? `${id}-hint` : "", fieldError(props.error, props.name) ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;

export function Field(props: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const { label, error, hint, ...input } = props;
  return (
    <FieldShell label={label} name={props.name} error={error} hint={hint} id={id}>
      <input id={id} aria-invalid={!!fieldError(error, props.name)} aria-describedby={describedBy(id, props)} {...input} />
    </FieldShell>
  );
}

export function SelectField(props: FieldProps & SelectHTMLAttributes<HTMLSelectElement> & { children: ReactNode }) {
  const id = useId();
  const { label, error, hint, children, ...select } = props;
  return (
    <FieldShell label={label} name={props.name} error={error} hint={hint} id={id}>
      <select id={id} aria-invalid={!!fieldError(error, props.name)} aria-describedby={describedBy(id, props)} {...select}>
        {children}
      </select>
    </FieldShell>
  );
}

export function TextField(props: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  const { label, error, hint, ...area } = props;
  return (
    <FieldShell label={label} name={props.name} error={error} hint={hint} id={id}>
      <textarea id={id} aria-invalid={!!fieldError(error, props.name)} aria-describedby={describedBy(id, props)} {...area} />
    </FieldShell>
  );
}

export function Probability({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  return <span className={`risk risk-${riskLevel(value)}`}>{value}%</span>;
}

export function Recommendation({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  return <span className={`badge rec-${value}`}>{words(value)}</span>;
}

export function Status({ value }: { value: string | null | undefined }) {
  return <span className={`badge status-${value ?? "none"}`}>{words(value)}</span>;
}

export function Pager({
  total,
  limit,
  offset,
  onOffset,
}: {
  total: number;
  limit: number;
  offset: number;
  onOffset: (offset: number) => void;
}) {
  if (total <= limit && offset === 0) return null;
  const last = Math.min(total, offset + limit);
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>
        {total ? offset + 1 : 0}–{last} of {total.toLocaleString()}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-title">
      <h1>{children}</h1>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  );
}

/** A secret the API returns once (a share password, an API key): shown with a copy button. */
export function Secret({ label, value }: { label: string; value: string }) {
  return (
    <div className="secret">
      <span>{label}</span>
      <code>{value}</code>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(value)}>
        Copy
      </button>
      <small>Shown only now: keep it somewhere safe.</small>
    </div>
  );
}

/** A checkbox with its label beside it, and the 422 of its field below. */
export function CheckField(
  props: { label: string; name: string; error?: unknown; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>,
) {
  const id = useId();
  const { label, error, hint, ...input } = props;
  const message = fieldError(error, props.name);
  return (
    <div className="check-field">
      <div className="check">
        <input id={id} type="checkbox" aria-describedby={describedBy(id, props)} aria-invalid={!!message} {...input} />
        <label htmlFor={id}>{label}</label>
      </div>
      <FieldNotes id={id} hint={hint} message={message} />
    </div>
  );
}

/** A delete (or another step that cannot be undone) that asks first, in place (no browser dialog). */
export function ConfirmButton({
  children,
  question,
  confirm,
  keep = "Keep it",
  label = "Confirm",
  onConfirm,
  busy,
  describedBy,
}: {
  children: ReactNode;
  question: ReactNode;
  confirm: string;
  keep?: string;
  /** The name of the group the question and its answers form. */
  label?: string;
  onConfirm: () => void;
  busy?: boolean;
  describedBy?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)} disabled={busy} aria-describedby={describedBy}>
        {children}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={label}>
      <span>{question}</span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)} disabled={busy}>
        {keep}
      </button>
    </span>
  );
}
