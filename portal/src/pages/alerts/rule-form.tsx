// An alert rule's form, new (POST /customer/alert-rules) or changed (PATCH): every field. A fraud
// rule fires on a verdict at or above min_probability (narrowed by categories and
// recommendations); a quality rule on a call whose MOS is at or below max_mos. It goes by e-mail
// (to the recipients, or the account's address) and to the connected channels ticked; a rule needs
// at least one of the two, and the API's 422 says so beside them.
import type { FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Field, SelectField, TextField } from "../../components/ui.tsx";
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
} from "../automation/rule-fields.tsx";
import { byField, CheckField, CheckGroup, type RecommendationKey } from "../automation/shared.tsx";
import { channelName, keys, listOf, useChannels, type AlertRule } from "./shared.tsx";

const FIELDS = [
  "name",
  "enabled",
  "trigger",
  "min_probability",
  "max_mos",
  "categories",
  "recommendations",
  "email_enabled",
  "recipients",
  "channel_ids",
  "throttle_minutes",
  "include_transcript",
  "include_sip_log",
  "include_pcap",
  "include_recording",
];

const ATTACHMENTS = [
  ["include_transcript", "Transcript"],
  ["include_sip_log", "SIP log"],
  ["include_pcap", "Packet capture (pcap)"],
  ["include_recording", "Recording"],
] as const;
type Attachment = (typeof ATTACHMENTS)[number][0];

type Form = {
  name: string;
  enabled: boolean;
  trigger: AlertRule["trigger"];
  min_probability: string;
  max_mos: string;
  categories: string;
  recommendations: RecommendationKey[];
  email_enabled: boolean;
  recipients: string;
  channel_ids: string[];
  throttle_minutes: string;
} & Record<Attachment, boolean>;

const fromRule = (rule: AlertRule | null): Form => ({
  name: rule?.name ?? "",
  enabled: rule?.enabled ?? true,
  trigger: rule?.trigger ?? "fraud",
  min_probability: String(rule?.min_probability ?? 70),
  max_mos: rule?.max_mos === null || rule?.max_mos === undefined ? "" : String(rule.max_mos),
  categories: (rule?.categories ?? []).join(", "),
  recommendations: recommendationsOf(rule?.recommendations),
  email_enabled: rule?.email_enabled ?? true,
  recipients: (rule?.recipients ?? []).join("\n"),
  channel_ids: rule?.channel_ids ?? [],
  throttle_minutes: String(rule?.throttle_minutes ?? 0),
  include_transcript: rule?.include_transcript ?? false,
  include_sip_log: rule?.include_sip_log ?? false,
  include_pcap: rule?.include_pcap ?? false,
  include_recording: rule?.include_recording ?? false,
});

function bodyOf(form: Form): Schemas["CreateAlertRule"] {
  const quality = form.trigger === "quality";
  return {
    name: form.name.trim(),
    enabled: form.enabled,
    trigger: form.trigger,
    min_probability: numberIn(form.min_probability, "min_probability", 0, 100),
    // A quality rule needs its MOS limit: left empty, the API's 422 says so beside the field.
    ...(form.max_mos.trim() ? { max_mos: numberIn(form.max_mos, "max_mos", 1, 5, false) } : {}),
    categories: quality ? null : listOf(form.categories).length ? listOf(form.categories) : null,
    recommendations: quality || !form.recommendations.length ? null : form.recommendations,
    email_enabled: form.email_enabled,
    recipients: listOf(form.recipients).length ? listOf(form.recipients) : null,
    channel_ids: form.channel_ids.length ? form.channel_ids : null,
    throttle_minutes: numberIn(form.throttle_minutes || "0", "throttle_minutes", 0, 10_080),
    include_transcript: form.include_transcript,
    include_sip_log: form.include_sip_log,
    include_pcap: form.include_pcap,
    include_recording: form.include_recording,
  };
}

export function AlertRuleForm({ rule, onDone }: { rule: AlertRule | null; onDone: () => void }) {
  const channels = useChannels();
  const [form, set] = useRuleForm(() => fromRule(rule));
  const save = useRuleSave(
    () => {
      const body = bodyOf(form);
      return rule
        ? must(api.PATCH("/customer/alert-rules/{rule_id}", { params: { path: { rule_id: rule.id } }, body }))
        : must(api.POST("/customer/alert-rules", { body }));
    },
    { feature: rule ? "alerts.rule.update" : "alerts.rule.create", rulesKey: keys.rules, onDone },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const error = byField(save.error);
  const quality = form.trigger === "quality";
  const channelIds = (channels.data ?? []).map((c) => c.id);
  return (
    <form onSubmit={submit} aria-label={rule ? `Change the alert rule ${rule.name}` : "New alert rule"} className="rule-form" noValidate>
      <div className="grid">
        <NameField value={form.name} onChange={(value) => set("name", value)} error={error} />
        <SelectField
          label="Trigger"
          name="trigger"
          value={form.trigger}
          onChange={(e) => set("trigger", e.target.value as Form["trigger"])}
          error={error}
        >
          <option value="fraud">Fraud: a verdict reaches the probability</option>
          <option value="quality">Quality: a call's MOS is at or below a limit</option>
          <option value="screening">Screening: a call screening flagged before answer</option>
        </SelectField>
        {quality ? (
          <Field
            label="MOS limit"
            name="max_mos"
            type="number"
            inputMode="decimal"
            min={1}
            max={5}
            step={0.1}
            value={form.max_mos}
            onChange={(e) => set("max_mos", e.target.value)}
            error={error}
            hint="Required for a quality rule: a call at or below this MOS (1-5) alerts."
          />
        ) : (
          <ProbabilityField
            value={form.min_probability}
            onChange={(value) => set("min_probability", value)}
            error={error}
            hint="70 and above is high risk, 30 and above medium."
          />
        )}
        <WholeNumberField
          label="At most one alert every (minutes)"
          name="throttle_minutes"
          min={0}
          max={10080}
          value={form.throttle_minutes}
          onChange={(value) => set("throttle_minutes", value)}
          error={error}
          hint="0: every matching call alerts."
        />
      </div>
      {quality ? null : (
        <div className="cols">
          <Field
            label="Categories"
            name="categories"
            value={form.categories}
            onChange={(e) => set("categories", e.target.value)}
            error={error}
            autoComplete="off"
            spellCheck={false}
            hint="Separated by commas, e.g. credit_card_scam, tech_support_scam. Empty: any category."
          />
          <RecommendationsField
            legend="Recommendations"
            value={form.recommendations}
            onChange={(value) => set("recommendations", value)}
            hint="None ticked: any recommendation."
            error={error}
          />
        </div>
      )}
      <fieldset className="deliveries">
        <legend>Deliveries</legend>
        <p className="hint">A rule needs at least one: e-mail, or a connected channel.</p>
        <div className="cols">
          <div>
            <CheckField
              label="Send an e-mail"
              name="email_enabled"
              checked={form.email_enabled}
              onChange={(e) => set("email_enabled", e.target.checked)}
              error={error}
            />
            <TextField
              label="Recipients"
              name="recipients"
              value={form.recipients}
              onChange={(e) => set("recipients", e.target.value)}
              error={error}
              rows={3}
              spellCheck={false}
              disabled={!form.email_enabled}
              hint="One address per line (at most 20). Empty: the account's e-mail address."
            />
          </div>
          {channels.data?.length ? (
            <CheckGroup
              legend="Connected channels"
              name="channel_ids"
              options={channelIds}
              value={form.channel_ids.filter((id) => channelIds.includes(id))}
              onChange={(value) => set("channel_ids", value)}
              label={(id) => {
                const channel = channels.data?.find((c) => c.id === id);
                return channel ? `${channelName(channel)}${channel.enabled ? "" : " (disabled)"}` : id;
              }}
              error={error}
            />
          ) : (
            <div>
              <p className="muted">No channel connected yet: connect Slack or a JSON webhook below to deliver there too.</p>
              <ErrorBox error={channels.error} />
              {/* The API's "needs at least one delivery" may name channel_ids: it shows here too. */}
              <ChannelError error={error} />
            </div>
          )}
        </div>
      </fieldset>
      <fieldset className="attachments">
        <legend>Attach to the e-mail</legend>
        <div className="check-row">
          {ATTACHMENTS.map(([name, label]) => (
            <CheckField
              key={name}
              label={label}
              name={name}
              checked={form[name]}
              onChange={(e) => set(name, e.target.checked)}
              error={error}
            />
          ))}
        </div>
        <p className="hint">Files past the size limit are sent as a link.</p>
      </fieldset>
      <EnabledField value={form.enabled} onChange={(value) => set("enabled", value)} error={error} />
      <RuleFormEnd error={error} fields={FIELDS} saving={save.isPending} isNew={!rule} onCancel={onDone} />
    </form>
  );
}

function ChannelError({ error }: { error: unknown }) {
  const message = error instanceof ApiError ? error.fields.channel_ids : undefined;
  return message ? (
    <small className="field-error" role="alert">
      {message}
    </small>
  ) : null;
}
