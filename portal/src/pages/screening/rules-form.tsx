// The rules card: every rule in its group with what it means, its default and what it did, its
// action, and for velocity rules what it counts by and its thresholds; a divert names where calls
// go. One save sends every rule; a refused value shows beside its field (the API's 422 names it).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError } from "../../api/errors.ts";
import { destinationName, useDestinations } from "../../api/destinations.ts";
import { ErrorBox, Field, Loading, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { RULES_KEY, saveRules, STATS_KEY, useRules, type Rules } from "./api.ts";
import {
  ACTION_NAMES,
  ACTIONS,
  defaultText,
  GROUPS,
  RULES,
  SCOPE_NAMES,
  SCOPES,
  type Action,
  type RuleSetting,
  type Scope,
} from "./rules.ts";

type Rule = (typeof RULES)[number];
const NUMBERS = ["threshold", "min_calls", "short_seconds"] as const;
type NumberKey = (typeof NUMBERS)[number];
/** A rule as edited: numbers as typed, so a value the API refuses reaches it and comes back beside its field. */
type Draft = Omit<RuleSetting, NumberKey> & Partial<Record<NumberKey, string>>;
type Drafts = Record<string, Draft>;

function toDraft(setting: RuleSetting): Draft {
  const { threshold, min_calls, short_seconds, ...rest } = setting;
  const typed = (n: number | undefined) => (n === undefined ? undefined : String(n));
  return { ...rest, threshold: typed(threshold), min_calls: typed(min_calls), short_seconds: typed(short_seconds) };
}

function toSetting(draft: Draft): RuleSetting {
  const setting: Record<string, unknown> = { ...draft };
  for (const key of NUMBERS) {
    const typed = draft[key]?.trim();
    if (!typed) delete setting[key];
    else setting[key] = Number.isFinite(Number(typed)) ? Number(typed) : typed;
  }
  if (!draft.prefix?.trim()) delete setting.prefix;
  if (draft.action !== "divert") delete setting.divert_destination_id;
  return setting as RuleSetting;
}

/** The 422's fields named as this form names them: "calls_per_minute.threshold" (without the body's "rules."). */
function byField(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const fields = Object.fromEntries(Object.entries(error.fields).map(([name, msg]) => [name.replace(/^rules\./, ""), msg]));
  return new ApiError(error.status, error.message, fields, error.retryAfter);
}

const fieldNames = (rules: Rules) =>
  Object.keys(rules).flatMap((rule) =>
    ["action", "scope", "threshold", "min_calls", "short_seconds", "prefix", "divert_destination_id"].map((f) => `${rule}.${f}`),
  );

export function RulesForm() {
  const queries = useQueryClient();
  const rules = useRules();
  const [edited, setEdited] = useState<Drafts | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (drafts: Drafts) => saveRules(Object.fromEntries(Object.entries(drafts).map(([name, d]) => [name, toSetting(d)]))),
    onSuccess: (next) => {
      featureUsed("screening.rules.save");
      queries.setQueryData(RULES_KEY, next);
      void queries.invalidateQueries({ queryKey: STATS_KEY });
      setEdited(null);
      setSaved(true);
    },
  });
  if (rules.isPending) return <Loading what="Reading the rules" />;
  if (!rules.data) return <ErrorBox error={rules.error} />;

  const drafts: Drafts = edited ?? Object.fromEntries(Object.entries(rules.data).map(([name, s]) => [name, toDraft(s)]));
  const change = (name: string, patch: Partial<Draft>) => {
    setSaved(false);
    save.reset();
    setEdited({ ...drafts, [name]: { ...drafts[name]!, ...patch } });
  };
  const error = byField(save.error);
  const named = error instanceof ApiError && Object.keys(error.fields).some((f) => fieldNames(rules.data).includes(f));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(drafts);
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Screening rules" className="screening-rules">
      {GROUPS.map((g) => (
        <section key={g.group} className="card" aria-labelledby={`screening-${g.group}`}>
          <h2 id={`screening-${g.group}`}>{g.title}</h2>
          <p className="muted">{g.about}</p>
          {RULES.filter((r) => r.group === g.group && drafts[r.name]).map((r) => (
            <RuleFields key={r.name} rule={r} draft={drafts[r.name]!} onChange={(patch) => change(r.name, patch)} error={error} />
          ))}
        </section>
      ))}
      <div className={edited ? "actions screening-save editing" : "actions screening-save"}>
        <button type="submit" className="primary" disabled={save.isPending || !edited}>
          {save.isPending ? "Saving…" : "Save the rules"}
        </button>
        <button
          type="button"
          onClick={() => {
            setEdited(null);
            save.reset();
          }}
          disabled={!edited || save.isPending}
        >
          Undo the changes
        </button>
        <span role="status" aria-live="polite">
          {saved ? "Saved: admission applies them to the next call." : edited ? "Changes not saved yet." : ""}
        </span>
      </div>
      {save.isError && !named ? <ErrorBox error={error} /> : null}
      {save.isError && named ? (
        <p className="error" role="alert">
          Nothing was saved: correct the marked fields.
        </p>
      ) : null}
    </form>
  );
}

function RuleFields({
  rule,
  draft,
  onChange,
  error,
}: {
  rule: Rule;
  draft: Draft;
  onChange: (patch: Partial<Draft>) => void;
  error: unknown;
}) {
  const name = (field: string) => `${rule.name}.${field}`;
  const number = (key: NumberKey, label: string, hint?: string) => (
    <Field
      label={label}
      name={name(key)}
      type="number"
      inputMode="numeric"
      step={1}
      value={draft[key] ?? ""}
      onChange={(event) => onChange({ [key]: event.target.value })}
      error={error}
      hint={hint}
    />
  );
  return (
    <fieldset className="screening-rule" data-testid="screening-rule" data-rule={rule.name} data-action={draft.action}>
      <legend>{rule.title}</legend>
      <p>{rule.meaning}</p>
      <p className="muted">Default: {defaultText(rule)}.</p>
      <div className="grid">
        <SelectField
          label="Action"
          name={name("action")}
          value={draft.action}
          onChange={(e) => onChange({ action: e.target.value as Action })}
          error={error}
        >
          {ACTIONS.map((a) => (
            <option key={a} value={a}>
              {ACTION_NAMES[a]}
            </option>
          ))}
        </SelectField>
        {draft.action === "divert" ? (
          <DivertField value={draft.divert_destination_id ?? ""} name={name("divert_destination_id")} onChange={onChange} error={error} />
        ) : null}
        {rule.group === "velocity" ? (
          <>
            <SelectField
              label="Counted"
              name={name("scope")}
              value={draft.scope ?? "caller_id"}
              onChange={(e) => onChange({ scope: e.target.value as Scope })}
              error={error}
            >
              {SCOPES.map((s) => (
                <option key={s} value={s}>
                  {SCOPE_NAMES[s]}
                </option>
              ))}
            </SelectField>
            {number("threshold", rule.threshold ?? "Threshold")}
            {rule.name === "short_call_share" ? (
              <>
                {number("min_calls", "Calls counted first", "The share counts once this many calls have ended.")}
                {number("short_seconds", "Short means under (seconds)")}
              </>
            ) : null}
            <Field
              label="Dialled prefix (optional)"
              name={name("prefix")}
              inputMode="tel"
              autoComplete="off"
              placeholder="+1415"
              value={draft.prefix ?? ""}
              onChange={(e) => onChange({ prefix: e.target.value })}
              error={error}
              hint={draft.scope === "dialled_prefix" ? "The prefix counted." : "Only calls to numbers starting with it."}
            />
          </>
        ) : null}
      </div>
    </fieldset>
  );
}

function DivertField({
  value,
  name,
  onChange,
  error,
}: {
  value: string;
  name: string;
  onChange: (patch: Partial<Draft>) => void;
  error: unknown;
}) {
  const destinations = useDestinations();
  return (
    <SelectField
      label="Divert to"
      name={name}
      value={value}
      onChange={(e) => onChange({ divert_destination_id: e.target.value || undefined })}
      error={error}
    >
      <option value="">{destinations.isPending ? "Reading the destinations…" : "Choose a destination"}</option>
      {destinations.data?.map((d) => (
        <option key={d.id} value={d.id}>
          {destinationName(d)}
        </option>
      ))}
    </SelectField>
  );
}
