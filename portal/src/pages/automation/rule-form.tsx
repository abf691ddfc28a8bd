// An automation rule's form, new (POST /automation/rules) or changed (PATCH): every field of the
// rule. A divert needs a destination: the form says so, and the API's 422 (or its 404 for a
// destination that is gone) shows beside that field. An emptied duration on a rule that had one is
// clear_duration: its controls from now on last until released.
import type { FormEvent } from "react";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, SelectField } from "../../components/ui.tsx";
import {
  EnabledField,
  NameField,
  numberIn,
  ProbabilityField,
  RecommendationsField,
  recommendationsOf,
  RuleFormEnd,
  useRuleForm,
  useRuleSave,
  WholeNumberField,
} from "./rule-fields.tsx";
import { byField, destinationName, keys, useDestinations, type AutomationRule, type RecommendationKey } from "./shared.tsx";

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
  recommendations: rule ? recommendationsOf(rule.recommendations) : ["block"],
  action: rule?.action ?? "block",
  divert_destination_id: rule?.divert_destination_id ?? "",
  duration_hours: rule?.duration_hours ? String(rule.duration_hours) : "",
});

/** The divert destination's 404 goes beside its field. */
function aboutTheDestination(err: unknown): unknown {
  if (err instanceof ApiError && err.status === 404 && /destination/i.test(err.message)) {
    return new ApiError(404, err.message, { divert_destination_id: "This destination no longer exists: choose another" });
  }
  return err;
}

export function AutomationRuleForm({ rule, onDone }: { rule: AutomationRule | null; onDone: () => void }) {
  const destinations = useDestinations();
  const [form, set] = useRuleForm(() => fromRule(rule));
  const save = useRuleSave(
    async () => {
      const duration = form.duration_hours.trim() ? numberIn(form.duration_hours, "duration_hours", 1, 8760) : null;
      const common = {
        name: form.name.trim(),
        enabled: form.enabled,
        min_probability: numberIn(form.min_probability, "min_probability", 0, 100),
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
    { feature: rule ? "automation.rule.update" : "automation.rule.create", rulesKey: keys.rules, onDone },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const error = byField(save.error);
  const none = destinations.data?.length === 0;
  return (
    <form onSubmit={submit} aria-label={rule ? `Change the rule ${rule.name}` : "New automation rule"} className="rule-form" noValidate>
      <div className="grid">
        <NameField value={form.name} onChange={(value) => set("name", value)} error={error} />
        <ProbabilityField
          value={form.min_probability}
          onChange={(value) => set("min_probability", value)}
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
        <WholeNumberField
          label="Control lasts (hours)"
          name="duration_hours"
          min={1}
          max={8760}
          value={form.duration_hours}
          onChange={(value) => set("duration_hours", value)}
          error={error}
          hint="Empty: until someone releases the number."
        />
      </div>
      <RecommendationsField
        legend="Recommendations that act"
        value={form.recommendations}
        onChange={(value) => set("recommendations", value)}
        hint="None ticked: any recommendation, as long as the probability is reached."
        error={error}
      />
      <EnabledField
        value={form.enabled}
        onChange={(value) => set("enabled", value)}
        error={error}
        hint="A disabled rule controls no new numbers; the controls it made stay."
      />
      {destinations.isError ? <ErrorBox error={destinations.error} /> : null}
      <RuleFormEnd error={error} fields={FIELDS} saving={save.isPending} isNew={!rule} onCancel={onDone} />
    </form>
  );
}
