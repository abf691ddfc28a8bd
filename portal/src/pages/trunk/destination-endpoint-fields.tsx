// Where a destination's calls go: its kind, the address (host, port, transport) with the voice-AI
// provider and agent when it is one, its label and tech prefix; whether it is the default, and
// whether SIP OPTIONS watch it.
import { Field, SelectField } from "../../components/ui.tsx";
import { TRANSPORTS, type Kind } from "./destination-choices.ts";
import { boxOf, checkOf, type DraftProps } from "./destination-draft.ts";
import { AgentIdField, ProviderFacts, ProviderField, type Providers } from "./destination-voice-fields.tsx";
import { CheckField, type VoiceProvider } from "./shared.tsx";

export function EndpointFields({
  providers,
  provider,
  ...props
}: DraftProps & { providers: Providers; provider: VoiceProvider | undefined }) {
  const { draft, set } = props;
  const voice = draft.kind === "voice_ai";
  const chooseKind = (kind: Kind) => {
    if (kind === "sip") set({ kind, provider: "", agent_id: "" });
    else set({ kind });
  };
  return (
    <fieldset>
      <legend>Where calls go</legend>
      <div className="trunk-fields">
        <SelectField label="Kind" {...boxOf(props, "kind")} onChange={(e) => chooseKind(e.target.value as Kind)}>
          <option value="sip">SIP endpoint</option>
          <option value="voice_ai">Voice-AI agent</option>
        </SelectField>
        {voice ? <ProviderField {...props} providers={providers} /> : null}
        <Field
          label="Host"
          {...boxOf(props, "host")}
          placeholder="sbc.carrier.example"
          required={!voice}
          autoComplete="off"
          spellCheck={false}
          hint="A DNS name or an IP address, without scheme or port."
        />
        <Field label="Port" {...boxOf(props, "port")} type="number" min={1} max={65535} required />
        <SelectField label="Transport" {...boxOf(props, "transport")}>
          {TRANSPORTS.map((t) => (
            <option key={t} value={t} disabled={!!provider && !provider.transports.includes(t)}>
              {t.toUpperCase()}
            </option>
          ))}
        </SelectField>
        <Field label="Label" {...boxOf(props, "label")} placeholder="Main SBC" autoComplete="off" />
        {voice ? <AgentIdField {...props} provider={provider} /> : null}
        <Field
          label="Tech prefix"
          {...boxOf(props, "tech_prefix")}
          placeholder="7788#"
          autoComplete="off"
          hint="Optional: put before the dialed number on the way to the destination (0-9 * # +)."
        />
      </div>
      {voice && provider ? <ProviderFacts provider={provider} /> : null}
      <CheckField
        label="Default destination"
        {...checkOf(props, "is_default")}
        hint="Takes the calls no whitelist entry or routing rule sends elsewhere (one per account)."
      />
      <CheckField label="Monitor with SIP OPTIONS" {...checkOf(props, "monitor_enabled")} />
    </fieldset>
  );
}
