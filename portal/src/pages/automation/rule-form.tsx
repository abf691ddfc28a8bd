// An automation rule's form, new (POST /automation/rules) or changed (PATCH): every field of the
// rule. A divert needs a destination: the form says so, and the API's 422 (or its 404 for a
// destination that is gone) shows beside that field. An emptied duration on a rule that had one is
// clear_duration: its controls from now on last until released.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Field, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import {
  allShown,
  byField,
  CheckField,
  CheckGroup,
  destinationName,
  keys,
  RECOMMENDATIONS,
  useDestinations,
  type AutomationRule,
  type RecommendationKey,
} from "./shared.tsx";

const FIELDS = ["name", "enabled", "min_probability", "recommendations", "action", "divert_destination_id", "duration_hours"];

type Form = {
  name: string;
  enabled: boolean;
  min_probability: string;
  recommendations: RecommendationKey[];
  action: "block" | "divert";
  divert_destination_id: string;
  duration_hours: string;
};

const fromRule = (rule: AutomationRule | null): Form => ({
  name: rule?.name ?? "",
  enabled: rule?.enabled ?? true,
  min_probability: String(rule?.min_probability ?? 90),
  recommendations: (rule ? (rule.recommendations ?? []) : ["block"]).filter((r): r is RecommendationKey =>
    (RECOMMENDATIONS as readonly string[]).includes(r),
  ),
  action: rule?.action ?? "block",
  divert_destination_id: rule?.divert_destination_id ?? "",
  duration_hours: rule?.duration_hours ? String(rule.duration_hours) : "",
});

/** A number the person typed, or a 422 of our own beside its field (the API would refuse it too). */
function wholeNumber(text: string, field: string, min: number, max: number): number {
  const n = Number(text.trim());
  if (text.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
    throw new ApiError(422, `${field}: a whole number from ${min} to ${max}`, { [field]: `A whole number from ${min} to ${max}` });
  }
  return n;
}

/** The divert destination's 404 goes beside its field. */
function aboutTheDestination(err: unknown): unknown {
  if (err instanceof ApiError && err.status === 404 && /destination/i.test(err.message)) {
    return new ApiError(404, err.message, { divert_destination_id: "This destination no longer exists: choose another" });
  }
  return err;
}

export function AutomationRuleForm({ rule, onDone }: { rule: AutomationRule | null; onDone: () => void }) {
  const queries = useQueryClient();
  const destinations = useDestinations();
  const [form, setForm] = useState(() => fromRule(rule));
  const set = <K extends keyof Form>(name: K, value: Form[K]) => setForm((f) => ({ ...f, [name]: value }));
  const save = useMutation({
    mutationFn: async () => {
      const duration = form.duration_hours.trim() ? wholeNumber(form.duration_hours, "duration_hours", 1, 8760) : null;
      const common = {
        name: form.name.trim(),
        enabled: form.enabled,
        min_probability: wholeNumber(form.min_probability, "min_probability", 0, 100),
        recommendations: form.recommendations.length ? form.recommendations : null,
        action: form.action,
        divert_destination_id: form.action === "divert" ? form.divert_destination_id || null : null,
      };
      try {
        if (!rule) return await must(api.POST("/automation/rules", { body: { ...common, duration_hours: duration } }));
        const lasting = duration === null && rule.duration_hours !== null;
        return await must(
          api.PATCH("/automation/rules/{rule_id}", {
            params: { path: { rule_id: rule.id } },
            body: { ...common, ...(lasting ? { clear_duration: true } : { duration_hours: duration, clear_duration: false }) },
          }),
        );
      } catch (err) {
        throw aboutTheDestination(err);
      }
    },
    onSuccess: () => {
      featureUsed(rule ? "automation.rule.update" : "automation.rule.create");
      void queries.invalidateQueries({ queryKey: keys.rules });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const error = byField(save.error);
  const named = allShown(error, FIELDS);
  const none = destinations.data?.length === 0;
  return (
    <form onSubmit={submit} aria-label={rule ? `Change the rule ${rule.name}` : "New automation rule"} className="rule-form" noValidate>
      <div className="grid">
        <Field
          label="Name"
          name="name"
          value={form.name}
          onChange={(e) => set("name", e.target.value)}
          error={error}
          required
          maxLength={200}
        />
        <Field
          label="Minimum fraud probability (%)"
          name="min_probability"
          type="number"
          inputMode="numeric"
          min={0}
          max={100}
          value={form.min_probability}
          onChange={(e) => set("min_probability", e.target.value)}
          error={error}
          hint="A verdict at or above it acts. 70 and above is high risk, 30 and above medium."
        />
        <SelectField
          label="Action"
          name="action"
          value={form.action}
          onChange={(e) => set("action", e.target.value as Form["action"])}
          error={error}
          hint="Block refuses the caller's next calls (SIP 603); divert sends them to a destination of yours."
        >
          <option value="block">Block the caller</option>
          <option value="divert">Divert the caller to a destination</option>
        </SelectField>
        <SelectField
          label="Divert destination"
          name="divert_destination_id"
          value={form.divert_destination_id}
          onChange={(e) => set("divert_destination_id", e.target.value)}
          error={error}
          disabled={form.action !== "divert"}
          hint={
            none ? (
              <>
                Required for a divert. This account has no destination yet: add one on the <Link href="/trunk">Trunk</Link> page.
              </>
            ) : (
              "Required for a divert: where the controlled caller's calls go."
            )
          }
        >
          <option value="">{destinations.isPending ? "Loading destinations…" : "No destination"}</option>
          {(destinations.data ?? []).map((d) => (
            <option key={d.id} value={d.id}>
              {destinationName(d)}
            </option>
          ))}
        </SelectField>
        <Field
          label="Control lasts (hours)"
          name="duration_hours"
          type="number"
          inputMode="numeric"
          min={1}
          max={8760}
          value={form.duration_hours}
          onChange={(e) => set("duration_hours", e.target.value)}
          error={error}
          hint="Empty: until someone releases the number."
        />
      </div>
      <CheckGroup
        legend="Recommendations that act"
        name="recommendations"
        options={RECOMMENDATIONS}
        value={form.recommendations}
        onChange={(value) => set("recommendations", value)}
        hint="None ticked: any recommendation, as long as the probability is reached."
        error={error}
      />
      <CheckField
        label="Enabled"
        name="enabled"
        checked={form.enabled}
        onChange={(e) => set("enabled", e.target.checked)}
        error={error}
        hint="A disabled rule controls no new numbers; the controls it made stay."
      />
      {destinations.isError ? <ErrorBox error={destinations.error} /> : null}
      {named ? null : <ErrorBox error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : rule ? "Save the rule" : "Create the rule"}
        </button>
        <button type="button" onClick={onDone} disabled={save.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
