// What an automation rule's form and an alert rule's form both are: the form's state and its save,
// the numbers checked before they are sent, and the field groups they share (the name, the minimum fraud
// probability, the recommendations that count, enabled, and the end of the form: the error no
// field shows, Save and Cancel).
import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Field } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { allShown, CheckField, CheckGroup, RECOMMENDATIONS, type RecommendationKey } from "./shared.tsx";

/** The form as typed, and a setter of one of its fields. */
export function useRuleForm<F extends object>(initial: () => F) {
  const [form, setForm] = useState(initial);
  const set = <K extends keyof F>(name: K, value: F[K]) => setForm((f) => ({ ...f, [name]: value }));
  return [form, set] as const;
}

/** Saving the form (`send` posts or patches it); once saved, the feature counts, the rules are read again and the form closes. */
export function useRuleSave<T>(
  send: () => Promise<T>,
  { feature, rulesKey, onDone }: { feature: string; rulesKey: QueryKey; onDone: () => void },
) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => {
      featureUsed(feature);
      void queries.invalidateQueries({ queryKey: rulesKey });
      onDone();
    },
  });
}

/** A number the person typed, or a 422 of our own beside its field (the API would refuse it too). */
export function numberIn(text: string, field: string, min: number, max: number, whole = true): number {
  const n = Number(text.trim());
  if (text.trim() === "" || Number.isNaN(n) || (whole && !Number.isInteger(n)) || n < min || n > max) {
    const message = `${whole ? "A whole number" : "A number"} from ${min} to ${max}`;
    throw new ApiError(422, `${field}: ${message}`, { [field]: message });
  }
  return n;
}

/** The recommendations of a stored rule that the form offers (any other is dropped). */
export const recommendationsOf = (values: string[] | null | undefined): RecommendationKey[] =>
  (values ?? []).filter((r): r is RecommendationKey => (RECOMMENDATIONS as readonly string[]).includes(r));

type Bound<T> = { value: T; onChange: (value: T) => void; error: unknown };

export function NameField({ value, onChange, error }: Bound<string>) {
  return <Field label="Name" name="name" value={value} onChange={(e) => onChange(e.target.value)} error={error} required maxLength={200} />;
}

/** A box for a whole number from `min` to `max` (numberIn checks it before it is sent). */
export function WholeNumberField({
  label,
  name,
  min,
  max,
  value,
  onChange,
  error,
  hint,
}: Bound<string> & { label: string; name: string; min: number; max: number; hint: string }) {
  return (
    <Field
      label={label}
      name={name}
      type="number"
      inputMode="numeric"
      min={min}
      max={max}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
      hint={hint}
    />
  );
}

export function ProbabilityField(props: Bound<string> & { hint: string }) {
  return <WholeNumberField label="Minimum fraud probability (%)" name="min_probability" min={0} max={100} {...props} />;
}

export function RecommendationsField({ legend, hint, ...bound }: Bound<RecommendationKey[]> & { legend: string; hint: string }) {
  return <CheckGroup legend={legend} name="recommendations" options={RECOMMENDATIONS} hint={hint} {...bound} />;
}

export function EnabledField({ value, onChange, error, hint }: Bound<boolean> & { hint?: string }) {
  return (
    <CheckField label="Enabled" name="enabled" checked={value} onChange={(e) => onChange(e.target.checked)} error={error} hint={hint} />
  );
}

/** The end of a rule's form: the error no field of `fields` shows, then Save and Cancel. */
export function RuleFormEnd({
  error,
  fields,
  saving,
  isNew,
  onCancel,
}: {
  error: unknown;
  fields: readonly string[];
  saving: boolean;
  isNew: boolean;
  onCancel: () => void;
}) {
  return (
    <>
      {allShown(error, fields) ? null : <ErrorBox error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? "Saving…" : isNew ? "Create the rule" : "Save the rule"}
        </button>
        <button type="button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
      </div>
    </>
  );
}
