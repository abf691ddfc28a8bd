// A new destination's secrets, typed once with the rest of the form: the digest credential, and for
// a voice-AI agent its webhook secret and the provider's API key. Afterwards they are set and
// cleared on their own (destination-secrets.tsx).
import { Field } from "../../components/ui.tsx";
import { boxOf, type DraftProps } from "./destination-draft.ts";
import type { VoiceProvider } from "./shared.tsx";

export function NewSecrets({ provider, ...props }: DraftProps & { provider: VoiceProvider | undefined }) {
  const voice = props.draft.kind === "voice_ai";
  return (
    <fieldset>
      <legend>Secrets (write-only)</legend>
      <p className="muted">
        Stored encrypted and never shown again, here or in the API: the page will only say whether each is set.
        {voice && provider?.challenges_invite ? " This provider challenges the INVITE: a credential is needed." : ""}
      </p>
      <div className="trunk-fields">
        <Field label="Digest username" {...boxOf(props, "auth_username")} autoComplete="off" />
        <Field label="Digest password" {...boxOf(props, "auth_password")} type="password" autoComplete="new-password" />
        <Field
          label="Digest realm"
          {...boxOf(props, "auth_realm")}
          autoComplete="off"
          hint="Only when the destination requires a specific one."
        />
        {voice ? (
          <>
            <Field label="Webhook secret" {...boxOf(props, "webhook_secret")} type="password" autoComplete="new-password" />
            <Field
              label="Provider API key"
              {...boxOf(props, "provider_api_key")}
              type="password"
              autoComplete="new-password"
              hint="For transfers and agent look-ups."
            />
          </>
        ) : null}
      </div>
    </fieldset>
  );
}
