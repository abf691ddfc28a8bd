// The fields only a voice-AI destination has: its provider (from GET /customer/voice-providers,
// whose defaults fill host, port and transport), the agent identifier the provider says it takes,
// and what the chosen provider expects.
import { Field, SelectField } from "../../components/ui.tsx";
import { boxOf, type DraftProps } from "./destination-draft.ts";
import type { useVoiceProviders, VoiceProvider } from "./shared.tsx";

/** The providers' query, as the form reads it once. */
export type Providers = ReturnType<typeof useVoiceProviders>;

export function ProviderField({ providers, ...props }: DraftProps & { providers: Providers }) {
  /** A provider brings its SIP defaults; choosing one fills host, port and transport. */
  const chooseProvider = (key: string) => {
    const chosen = providers.data?.find((p) => p.key === key);
    props.set(
      chosen
        ? { provider: key, host: chosen.default_host, port: String(chosen.default_port), transport: chosen.default_transport }
        : { provider: key },
    );
  };
  return (
    <SelectField
      label="Provider"
      {...boxOf(props, "provider")}
      onChange={(e) => chooseProvider(e.target.value)}
      required
      hint={providers.isPending ? "Loading the providers…" : "Its defaults fill host, port and transport."}
    >
      <option value="">Choose a provider</option>
      {(providers.data ?? []).map((p) => (
        <option key={p.key} value={p.key}>
          {p.name}
        </option>
      ))}
    </SelectField>
  );
}

export function AgentIdField({ provider, ...props }: DraftProps & { provider: VoiceProvider | undefined }) {
  return (
    <Field
      label="Agent identifier"
      {...boxOf(props, "agent_id")}
      autoComplete="off"
      hint={provider ? provider.agent_id_label : "Choose the provider first: it says what identifies the agent."}
    />
  );
}

/** What the chosen provider expects: codecs, transports, the agent identifier, credential and webhooks. */
export function ProviderFacts({ provider }: { provider: VoiceProvider }) {
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
