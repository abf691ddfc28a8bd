// A destination's form, new (POST /customer/destinations) or changed (PATCH): every field of the
// specification. A voice-AI destination picks its provider from GET /customer/voice-providers,
// whose defaults fill host, port and transport and which says what the agent identifier is. The
// secrets (digest credential, webhook secret, provider key) are typed here only for a new
// destination; afterwards they are set and cleared on their own (destination-secrets.tsx).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { Field, SelectField, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { CheckField, keys, orNull, TrunkError, useVoiceProviders, type Destination, type VoiceProvider } from "./shared.tsx";

type Kind = Destination["kind"];
type Transport = Destination["transport"];
type Processing = Destination["processing"];
type SampleMode = Destination["sample_mode"];
type TransferMode = Destination["transfer_mode"];
type ProviderKey = NonNullable<Schemas["CreateDestination"]["provider"]>;

export const PROCESSING: [Processing, string][] = [
  ["full", "Record and analyse"],
  ["record_only", "Record only"],
  ["relay_only", "Relay only (nothing recorded)"],
];
export const SAMPLE_MODES: [SampleMode, string][] = [
  ["analyse", "Analyse the sampled calls (the others are recorded as processing says)"],
  ["record", "Record only the sampled calls (the others are relayed)"],
];
export const TRANSFER_MODES: [TransferMode, string][] = [
  ["platform", "The platform bridges transfers"],
  ["refer", "Pass the SIP REFER on"],
];
const TRANSPORTS: Transport[] = ["udp", "tcp", "tls"];

/** Every field the form names; a 422 of any other lands in the error below the form. */
const FORM_FIELDS = [
  "kind",
  "provider",
  "host",
  "port",
  "transport",
  "label",
  "is_default",
  "agent_id",
  "config",
  "tech_prefix",
  "monitor_enabled",
  "processing",
  "sample_rate",
  "sample_mode",
  "transfer_mode",
  "auth_username",
  "auth_password",
  "auth_realm",
  "webhook_secret",
  "provider_api_key",
];

type Draft = {
  kind: Kind;
  provider: string;
  host: string;
  port: string;
  transport: Transport;
  label: string;
  is_default: boolean;
  agent_id: string;
  config: string;
  tech_prefix: string;
  monitor_enabled: boolean;
  processing: Processing;
  sample_rate: string;
  sample_mode: SampleMode;
  transfer_mode: TransferMode;
  auth_username: string;
  auth_password: string;
  auth_realm: string;
  webhook_secret: string;
  provider_api_key: string;
};

const NEW: Draft = {
  kind: "sip",
  provider: "",
  host: "",
  port: "5060",
  transport: "udp",
  label: "",
  is_default: false,
  agent_id: "",
  config: "",
  tech_prefix: "",
  monitor_enabled: false,
  processing: "full",
  sample_rate: "1",
  sample_mode: "analyse",
  transfer_mode: "platform",
  auth_username: "",
  auth_password: "",
  auth_realm: "",
  webhook_secret: "",
  provider_api_key: "",
};

const draftOf = (d: Destination): Draft => ({
  ...NEW,
  kind: d.kind,
  provider: d.provider ?? "",
  host: d.host,
  port: String(d.port),
  transport: d.transport,
  label: d.label ?? "",
  is_default: d.is_default,
  agent_id: d.agent_id ?? "",
  config: d.config ? JSON.stringify(d.config, null, 2) : "",
  tech_prefix: d.tech_prefix ?? "",
  monitor_enabled: d.monitor_enabled,
  processing: d.processing,
  sample_rate: String(d.sample_rate),
  sample_mode: d.sample_mode,
  transfer_mode: d.transfer_mode,
});

/** The config box as the API's object: empty is none; anything but a JSON object is refused here, next to the field. */
function parseConfig(text: string): Record<string, unknown> | null {
  if (text.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(422, "config: not valid JSON", { config: 'must be a JSON object, such as {"language": "en"}' });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError(422, "config: not an object", { config: 'must be a JSON object, such as {"language": "en"}' });
  }
  return value as Record<string, unknown>;
}

/** What both POST and PATCH carry (the secrets aside). */
function fieldsOf(draft: Draft) {
  const voice = draft.kind === "voice_ai";
  return {
    kind: draft.kind,
    provider: voice && draft.provider ? (draft.provider as ProviderKey) : null,
    // An empty host of a voice-AI destination is the provider's own.
    ...(draft.host.trim() || !voice ? { host: draft.host.trim() } : {}),
    port: Number(draft.port),
    transport: draft.transport,
    label: orNull(draft.label),
    is_default: draft.is_default,
    agent_id: voice ? orNull(draft.agent_id) : null,
    config: parseConfig(draft.config),
    tech_prefix: orNull(draft.tech_prefix),
    monitor_enabled: draft.monitor_enabled,
    processing: draft.processing,
    sample_rate: Number(draft.sample_rate),
    sample_mode: draft.sample_mode,
    transfer_mode: draft.transfer_mode,
  };
}

/** Only the secrets typed in: an empty box sends nothing. */
function secretsOf(draft: Draft) {
  const secrets: Record<string, string> = {};
  for (const name of ["auth_username", "auth_password", "auth_realm", "webhook_secret", "provider_api_key"] as const) {
    if (draft[name].trim() !== "") secrets[name] = name === "auth_password" ? draft[name] : draft[name].trim();
  }
  return secrets;
}

export function DestinationForm({
  destination,
  onDone,
  onCreated,
}: {
  /** The destination to change; none for a new one. */
  destination?: Destination;
  onDone: () => void;
  onCreated?: (d: Destination) => void;
}) {
  const queries = useQueryClient();
  const providers = useVoiceProviders();
  const [draft, setDraft] = useState<Draft>(destination ? draftOf(destination) : NEW);
  const set = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
  const provider = providers.data?.find((p) => p.key === draft.provider);
  const voice = draft.kind === "voice_ai";

  const save = useMutation({
    mutationFn: async () => {
      const fields = fieldsOf(draft);
      if (destination) {
        return must(api.PATCH("/customer/destinations/{dest_id}", { params: { path: { dest_id: destination.id } }, body: fields }));
      }
      return must(api.POST("/customer/destinations", { body: { ...fields, ...secretsOf(draft) } }));
    },
    onSuccess: (saved) => {
      featureUsed(destination ? "trunk.destination.edit" : "trunk.destination.add");
      // The secrets leave the page with the answer: nothing typed stays in a box.
      setDraft((d) => ({ ...d, auth_password: "", webhook_secret: "", provider_api_key: "" }));
      void queries.invalidateQueries({ queryKey: keys.destinations });
      if (!destination) onCreated?.(saved);
      onDone();
    },
  });

  /** A provider brings its SIP defaults; choosing one fills host, port and transport. */
  const chooseProvider = (key: string) => {
    const chosen = providers.data?.find((p) => p.key === key);
    set(
      chosen
        ? { provider: key, host: chosen.default_host, port: String(chosen.default_port), transport: chosen.default_transport }
        : { provider: key },
    );
  };
  const chooseKind = (kind: Kind) => {
    if (kind === "sip") set({ kind, provider: "", agent_id: "" });
    else set({ kind });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const title = destination ? `Change destination ${destination.label ?? destination.host}` : "New destination";
  return (
    <form className="trunk-form destination-form" onSubmit={submit} aria-label={title}>
      <fieldset>
        <legend>Where calls go</legend>
        <div className="trunk-fields">
          <SelectField label="Kind" name="kind" value={draft.kind} onChange={(e) => chooseKind(e.target.value as Kind)} error={save.error}>
            <option value="sip">SIP endpoint</option>
            <option value="voice_ai">Voice-AI agent</option>
          </SelectField>
          {voice ? (
            <SelectField
              label="Provider"
              name="provider"
              value={draft.provider}
              onChange={(e) => chooseProvider(e.target.value)}
              required
              error={save.error}
              hint={providers.isPending ? "Loading the providers…" : "Its defaults fill host, port and transport."}
            >
              <option value="">Choose a provider</option>
              {(providers.data ?? []).map((p) => (
                <option key={p.key} value={p.key}>
                  {p.name}
                </option>
              ))}
            </SelectField>
          ) : null}
          <Field
            label="Host"
            name="host"
            value={draft.host}
            onChange={(e) => set({ host: e.target.value })}
            placeholder="sbc.carrier.example"
            required={!voice}
            autoComplete="off"
            spellCheck={false}
            hint="A DNS name or an IP address, without scheme or port."
            error={save.error}
          />
          <Field
            label="Port"
            name="port"
            type="number"
            min={1}
            max={65535}
            value={draft.port}
            onChange={(e) => set({ port: e.target.value })}
            required
            error={save.error}
          />
          <SelectField
            label="Transport"
            name="transport"
            value={draft.transport}
            onChange={(e) => set({ transport: e.target.value as Transport })}
            error={save.error}
          >
            {TRANSPORTS.map((t) => (
              <option key={t} value={t} disabled={!!provider && !provider.transports.includes(t)}>
                {t.toUpperCase()}
              </option>
            ))}
          </SelectField>
          <Field
            label="Label"
            name="label"
            value={draft.label}
            onChange={(e) => set({ label: e.target.value })}
            placeholder="Main SBC"
            autoComplete="off"
            error={save.error}
          />
          {voice ? (
            <Field
              label="Agent identifier"
              name="agent_id"
              value={draft.agent_id}
              onChange={(e) => set({ agent_id: e.target.value })}
              autoComplete="off"
              hint={provider ? provider.agent_id_label : "Choose the provider first: it says what identifies the agent."}
              error={save.error}
            />
          ) : null}
          <Field
            label="Tech prefix"
            name="tech_prefix"
            value={draft.tech_prefix}
            onChange={(e) => set({ tech_prefix: e.target.value })}
            placeholder="7788#"
            autoComplete="off"
            hint="Optional: put before the dialed number on the way to the destination (0-9 * # +)."
            error={save.error}
          />
        </div>
        {voice && provider ? <ProviderFacts provider={provider} /> : null}
        <CheckField
          label="Default destination"
          name="is_default"
          checked={draft.is_default}
          onChange={(e) => set({ is_default: e.target.checked })}
          hint="Takes the calls no whitelist entry or routing rule sends elsewhere (one per account)."
          error={save.error}
        />
        <CheckField
          label="Monitor with SIP OPTIONS"
          name="monitor_enabled"
          checked={draft.monitor_enabled}
          onChange={(e) => set({ monitor_enabled: e.target.checked })}
          error={save.error}
        />
      </fieldset>
      <fieldset>
        <legend>Recording and analysis</legend>
        <div className="trunk-fields">
          <SelectField
            label="Processing"
            name="processing"
            value={draft.processing}
            onChange={(e) => set({ processing: e.target.value as Processing })}
            error={save.error}
          >
            {PROCESSING.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </SelectField>
          <Field
            label="Sample rate (one call in)"
            name="sample_rate"
            type="number"
            min={1}
            value={draft.sample_rate}
            onChange={(e) => set({ sample_rate: e.target.value })}
            required
            hint="1 analyses every call."
            error={save.error}
          />
          <SelectField
            label="Sample mode"
            name="sample_mode"
            value={draft.sample_mode}
            onChange={(e) => set({ sample_mode: e.target.value as SampleMode })}
            error={save.error}
          >
            {SAMPLE_MODES.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Transfers"
            name="transfer_mode"
            value={draft.transfer_mode}
            onChange={(e) => set({ transfer_mode: e.target.value as TransferMode })}
            error={save.error}
          >
            {TRANSFER_MODES.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </SelectField>
        </div>
        <TextField
          label="Config (JSON object)"
          name="config"
          value={draft.config}
          onChange={(e) => set({ config: e.target.value })}
          placeholder='{"language": "en"}'
          spellCheck={false}
          hint="Optional free-form settings, at most 16,384 characters."
          error={save.error}
        />
      </fieldset>
      {destination ? null : <NewSecrets draft={draft} set={set} provider={provider} voice={voice} error={save.error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : destination ? "Save changes" : "Add destination"}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <TrunkError error={save.error} fields={FORM_FIELDS} />
    </form>
  );
}

/** What the chosen provider expects: codecs, transports, the agent identifier, credential and webhooks. */
function ProviderFacts({ provider }: { provider: VoiceProvider }) {
  return (
    <div className="trunk-provider" data-testid="provider-facts">
      <p>
        <strong>{provider.name}</strong>: default <code>{provider.default_host}</code> port {provider.default_port} over{" "}
        {provider.default_transport.toUpperCase()} (accepts {provider.transports.map((t) => t.toUpperCase()).join(", ")}
        {provider.tls_port ? `; TLS on port ${provider.tls_port}` : ""}); codecs {provider.codecs.join(", ")}.
      </p>
      <p>
        The agent identifier is the {provider.agent_id_kind.replace(/_/g, " ")}: {provider.agent_id_label}. It becomes the user part of the
        Request-URI we send the provider.
      </p>
      {provider.challenges_invite ? (
        <p>
          The agent answers our INVITE with a digest challenge: store the username and password of its number as the destination&apos;s
          credential (our SIP egress is shared by every account, so an IP allow-list alone would let any of them reach the agent).
        </p>
      ) : null}
      {provider.sends_webhooks ? (
        <p>
          {provider.name} calls back when a call starts and ends; store the secret it signs with as the webhook secret
          {provider.webhook_signature ? ` (${provider.webhook_signature})` : ""}.
        </p>
      ) : null}
      <p>
        <a href={provider.docs_url} target="_blank" rel="noreferrer">
          {provider.name} SIP documentation
        </a>
      </p>
    </div>
  );
}

function NewSecrets({
  draft,
  set,
  provider,
  voice,
  error,
}: {
  draft: Draft;
  set: (changes: Partial<Draft>) => void;
  provider: VoiceProvider | undefined;
  voice: boolean;
  error: unknown;
}) {
  return (
    <fieldset>
      <legend>Secrets (write-only)</legend>
      <p className="muted">
        Stored encrypted and never shown again, here or in the API: the page will only say whether each is set.
        {voice && provider?.challenges_invite ? " This provider challenges the INVITE: a credential is needed." : ""}
      </p>
      <div className="trunk-fields">
        <Field
          label="Digest username"
          name="auth_username"
          value={draft.auth_username}
          onChange={(e) => set({ auth_username: e.target.value })}
          autoComplete="off"
          error={error}
        />
        <Field
          label="Digest password"
          name="auth_password"
          type="password"
          value={draft.auth_password}
          onChange={(e) => set({ auth_password: e.target.value })}
          autoComplete="new-password"
          error={error}
        />
        <Field
          label="Digest realm"
          name="auth_realm"
          value={draft.auth_realm}
          onChange={(e) => set({ auth_realm: e.target.value })}
          autoComplete="off"
          hint="Only when the destination requires a specific one."
          error={error}
        />
        {voice ? (
          <>
            <Field
              label="Webhook secret"
              name="webhook_secret"
              type="password"
              value={draft.webhook_secret}
              onChange={(e) => set({ webhook_secret: e.target.value })}
              autoComplete="new-password"
              error={error}
            />
            <Field
              label="Provider API key"
              name="provider_api_key"
              type="password"
              value={draft.provider_api_key}
              onChange={(e) => set({ provider_api_key: e.target.value })}
              autoComplete="new-password"
              hint="For transfers and agent look-ups."
              error={error}
            />
          </>
        ) : null}
      </div>
    </fieldset>
  );
}
