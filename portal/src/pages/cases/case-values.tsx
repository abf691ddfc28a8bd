// What cases (and support tickets) share: their statuses and severities, the account's users to
// assign a case to, a severity badge, a thread of comments or messages, the page size, and the
// call ID a new one may name (its field, checked before it is sent, and the API's 404 beside it).
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { Field } from "../../components/ui.tsx";
import { when, words } from "../../lib/format.ts";

export const CASE_STATUSES = ["open", "in_review", "resolved", "dismissed"] as const;
export const SEVERITIES = ["low", "medium", "high", "critical"] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];
export type Severity = (typeof SEVERITIES)[number];

export const PAGE_SIZE = 50;

/** A value of the URL that must be one of a list, else nothing (a hand-edited link is ignored). */
export const oneOf = <T extends string>(values: readonly T[], value: string): T | undefined =>
  (values as readonly string[]).includes(value) ? (value as T) : undefined;

export const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/** The call ID typed in a form, trimmed ("" for none); one that is no UUID is refused beside its field before it is sent. */
export function typedCallId(text: string): string {
  const callId = text.trim();
  if (callId && !isUuid(callId))
    throw new ApiError(422, "Not a call ID", { call_id: "A call ID looks like 3f2c…-…: copy it from the call's page" });
  return callId;
}

/** The API's 404 for the call a form names: no call of this account has the ID typed, said beside its field. */
export const aboutTheCallId = (err: unknown): unknown =>
  err instanceof ApiError && err.status === 404 ? new ApiError(404, err.message, { call_id: "No call of this account has this ID" }) : err;

export function CallIdField({
  value,
  onChange,
  error,
  hint,
}: {
  value: string;
  onChange: (value: string) => void;
  error: unknown;
  hint: string;
}) {
  return (
    <Field
      label="Call ID (optional)"
      name="call_id"
      spellCheck={false}
      value={value}
      error={error}
      hint={hint}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** A 404 or an id that is no UUID at all (422): the record is not there for this account. */
export const isMissing = (error: unknown) => error instanceof ApiError && (error.status === 404 || error.status === 422);

/** The account's users (GET /customer/users), to filter by assignee and to assign a case. */
export function useAccountUsers() {
  return useQuery({ queryKey: ["customer", "users"], queryFn: () => must(api.GET("/customer/users")), staleTime: 60_000 });
}

export const userLabel = (user: Schemas["User"]) => user.name || user.email;

export function Severity({ value }: { value: string }) {
  return <span className={`badge sev-${value}`}>{words(value)}</span>;
}

export type ThreadEntry = { id: string; author: string; kind: "own" | "system" | "support"; at: string; body: ReactNode };

/** Comments of a case or messages of a ticket, oldest first. */
export function Thread({ entries, label }: { entries: ThreadEntry[]; label: string }) {
  if (!entries.length) return null;
  return (
    <ol className="thread" aria-label={label}>
      {entries.map((entry) => (
        <li key={entry.id} className={`thread-${entry.kind}`}>
          <p className="thread-meta">
            <strong>{entry.author}</strong> <time dateTime={entry.at}>{when(entry.at)}</time>
          </p>
          <div className="thread-body">{entry.body}</div>
        </li>
      ))}
    </ol>
  );
}
