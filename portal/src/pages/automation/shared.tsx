// What the automation and alerts pages share: their queries' keys, the account's destinations by
// name, a checkbox with its label beside it, a group of checkboxes (recommendations), the enabled
// badge, and a 422 about an element of a list (recipients.2) shown beside the list's field.
import { useQuery } from "@tanstack/react-query";
import { useId, type ReactNode } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { destinationName, type Destination } from "../../api/destinations.ts";
import { ApiError } from "../../api/errors.ts";
import { fieldError, FieldNotes } from "../../components/ui.tsx";

export { destinationName, useDestinations, type Destination } from "../../api/destinations.ts";
export { CheckField } from "../../components/ui.tsx";
import { words } from "../../lib/format.ts";

export type AutomationRule = Schemas["AutomationRule"];
export type AniControl = Schemas["AniControl"];

export const keys = {
  rules: ["automation", "rules"],
  controls: ["automation", "controls"],
} as const;

export const RECOMMENDATIONS = ["block", "review", "allow"] as const;
export type RecommendationKey = (typeof RECOMMENDATIONS)[number];

export const useAutomationRules = () => useQuery({ queryKey: keys.rules, queryFn: () => must(api.GET("/automation/rules")) });

export function destinationLabel(id: string | null | undefined, destinations: Destination[] | undefined): string {
  if (!id) return "—";
  const found = destinations?.find((d) => d.id === id);
  return found ? destinationName(found) : "a destination that no longer exists";
}

/** The list a rule narrows to, in words ("block or review"), or what an empty one means. */
export const listed = (values: string[] | null | undefined, none: string) => (values?.length ? values.map(words).join(" or ") : none);

/**
 * The API names an element of a list ("recipients.2", "channel_ids.0"): the message goes beside
 * the list's own field. Other errors pass as they are.
 */
export function byField(error: unknown): unknown {
  if (!(error instanceof ApiError) || !Object.keys(error.fields).some((name) => name.includes("."))) return error;
  const fields: Record<string, string> = {};
  for (const [name, message] of Object.entries(error.fields)) fields[name.split(".")[0]!] ??= message;
  return new ApiError(error.status, error.message, fields, error.retryAfter);
}

/** Whether every field a 422 names has its own place in the form (else the message goes in an ErrorBox). */
export const allShown = (error: unknown, names: readonly string[]) =>
  error instanceof ApiError && Object.keys(error.fields).length > 0 && Object.keys(error.fields).every((name) => names.includes(name));

/** Checkboxes for a list field (a fieldset with its legend), the 422 of the list below them. */
export function CheckGroup<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  label = words,
  hint,
  error,
}: {
  legend: string;
  name: string;
  options: readonly T[];
  value: T[];
  onChange: (value: T[]) => void;
  label?: (option: T) => ReactNode;
  hint?: ReactNode;
  error?: unknown;
}) {
  const id = useId();
  const message = fieldError(error, name);
  return (
    <fieldset className={message ? "check-group invalid" : "check-group"} aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <div className="check" key={option}>
          <input
            id={`${id}-${option}`}
            type="checkbox"
            name={name}
            value={option}
            checked={value.includes(option)}
            onChange={(e) => onChange(e.target.checked ? [...value, option] : value.filter((v) => v !== option))}
          />
          <label htmlFor={`${id}-${option}`}>{label(option)}</label>
        </div>
      ))}
      <FieldNotes id={id} hint={hint} message={message} />
    </fieldset>
  );
}

/** Whether a rule or a channel acts, as a badge. */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span className={enabled ? "badge on" : "badge off"}>{enabled ? "Enabled" : "Disabled"}</span>;
}
