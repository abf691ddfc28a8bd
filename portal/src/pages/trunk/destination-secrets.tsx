// A destination's write-only secrets (PATCH /customer/destinations/{id}): the digest credential,
// the webhook secret and the provider's API key. Each shows only whether it is set; Set opens a
// password box (emptied once sent), Clear removes it (clear_credential, clear_webhook_secret,
// clear_provider_key). A voice-AI destination's inbound webhook URL can be issued anew
// (rotate_webhook_token).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { Field } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { keys, TrunkError, type Destination } from "./shared.tsx";

type Patch = Schemas["UpdateDestination"];

function usePatch(destination: Destination, feature: string) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (body: Patch) =>
      must(api.PATCH("/customer/destinations/{dest_id}", { params: { path: { dest_id: destination.id } }, body })),
    onSuccess: (saved) => {
      featureUsed(feature);
      // The answer is the destination as stored: its has_* flags show at once.
      queries.setQueryData<Destination[]>(keys.destinations, (list) => list?.map((d) => (d.id === saved.id ? saved : d)));
      void queries.invalidateQueries({ queryKey: keys.destinations });
    },
  });
}

export function DestinationSecrets({ destination }: { destination: Destination }) {
  const voice = destination.kind === "voice_ai";
  return (
    <div className="trunk-secrets">
      <h4>Secrets</h4>
      <p className="muted">Write-only: stored encrypted, never shown again. Set replaces what is stored.</p>
      <ul className="plain">
        <Credential destination={destination} />
        {voice || destination.has_webhook_secret ? (
          <OneSecret
            destination={destination}
            name="webhook_secret"
            label="Webhook secret"
            isSet={destination.has_webhook_secret}
            needed={destination.needs_webhook ? "needed: the provider signs its callbacks with it" : null}
            clear={{ clear_webhook_secret: true }}
          />
        ) : null}
        {voice || destination.has_provider_key ? (
          <OneSecret
            destination={destination}
            name="provider_api_key"
            label="Provider API key"
            isSet={destination.has_provider_key}
            needed={null}
            clear={{ clear_provider_key: true }}
          />
        ) : null}
        {voice ? <WebhookUrl destination={destination} /> : null}
      </ul>
    </div>
  );
}

function SetState({ isSet, needed }: { isSet: boolean; needed: string | null }) {
  return (
    <>
      <span className={isSet ? "badge trunk-ok" : "badge"} data-testid="secret-state">
        {isSet ? "Set" : "Not set"}
      </span>
      {!isSet && needed ? <span className="trunk-needed"> {needed}</span> : null}
    </>
  );
}

function Credential({ destination }: { destination: Destination }) {
  const patch = usePatch(destination, "trunk.destination.credential");
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState({ auth_username: "", auth_password: "", auth_realm: "" });
  const [done, setDone] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    patch.mutate(
      { auth_username: form.auth_username.trim(), auth_password: form.auth_password, auth_realm: form.auth_realm.trim() || null },
      {
        onSuccess: () => {
          setForm({ auth_username: "", auth_password: "", auth_realm: "" });
          setOpen(false);
          setDone("Credential stored. It is not shown again.");
        },
      },
    );
  };
  const clear = () => {
    setDone(null);
    patch.mutate({ clear_credential: true }, { onSuccess: () => setDone("Credential cleared.") });
  };
  return (
    <li className="trunk-secret" data-secret="credential">
      <div className="trunk-secret-line">
        <span className="trunk-secret-name">Digest credential</span>
        <SetState
          isSet={destination.has_credential}
          needed={destination.needs_credential ? "needed: the provider challenges our INVITE" : null}
        />
        <span className="actions">
          <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {destination.has_credential ? "Replace" : "Set"}
            <span className="visually-hidden"> the digest credential</span>
          </button>
          {destination.has_credential ? (
            <button type="button" className="danger" onClick={clear} disabled={patch.isPending}>
              Clear<span className="visually-hidden"> the digest credential</span>
            </button>
          ) : null}
        </span>
      </div>
      {open ? (
        <form className="inline-form" onSubmit={submit} aria-label="Digest credential">
          <Field
            label="Username"
            name="auth_username"
            value={form.auth_username}
            onChange={(e) => setForm({ ...form, auth_username: e.target.value })}
            required
            autoComplete="off"
            error={patch.error}
          />
          <Field
            label="Password"
            name="auth_password"
            type="password"
            value={form.auth_password}
            onChange={(e) => setForm({ ...form, auth_password: e.target.value })}
            required
            autoComplete="new-password"
            error={patch.error}
          />
          <Field
            label="Realm"
            name="auth_realm"
            value={form.auth_realm}
            onChange={(e) => setForm({ ...form, auth_realm: e.target.value })}
            autoComplete="off"
            hint="Optional."
            error={patch.error}
          />
          <button type="submit" className="primary" disabled={patch.isPending}>
            Save credential
          </button>
        </form>
      ) : null}
      {done ? (
        <p role="status" className="trunk-note">
          {done}
        </p>
      ) : null}
      <TrunkError error={patch.error} fields={["auth_username", "auth_password", "auth_realm"]} />
    </li>
  );
}

function OneSecret({
  destination,
  name,
  label,
  isSet,
  needed,
  clear,
}: {
  destination: Destination;
  name: "webhook_secret" | "provider_api_key";
  label: string;
  isSet: boolean;
  needed: string | null;
  clear: Patch;
}) {
  const patch = usePatch(destination, `trunk.destination.${name}`);
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    patch.mutate(
      { [name]: value },
      {
        onSuccess: () => {
          setValue("");
          setOpen(false);
          setDone(`${label} stored. It is not shown again.`);
        },
      },
    );
  };
  return (
    <li className="trunk-secret" data-secret={name}>
      <div className="trunk-secret-line">
        <span className="trunk-secret-name">{label}</span>
        <SetState isSet={isSet} needed={needed} />
        <span className="actions">
          <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {isSet ? "Replace" : "Set"}
            <span className="visually-hidden"> the {label.toLowerCase()}</span>
          </button>
          {isSet ? (
            <button
              type="button"
              className="danger"
              disabled={patch.isPending}
              onClick={() => {
                setDone(null);
                patch.mutate(clear, { onSuccess: () => setDone(`${label} cleared.`) });
              }}
            >
              Clear<span className="visually-hidden"> the {label.toLowerCase()}</span>
            </button>
          ) : null}
        </span>
      </div>
      {open ? (
        <form className="inline-form" onSubmit={submit} aria-label={label}>
          <Field
            label={label}
            name={name}
            type="password"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            required
            autoComplete="new-password"
            error={patch.error}
          />
          <button type="submit" className="primary" disabled={patch.isPending}>
            Save
          </button>
        </form>
      ) : null}
      {done ? (
        <p role="status" className="trunk-note">
          {done}
        </p>
      ) : null}
      <TrunkError error={patch.error} fields={[name]} />
    </li>
  );
}

function WebhookUrl({ destination }: { destination: Destination }) {
  const patch = usePatch(destination, "trunk.destination.rotate_webhook");
  const [asking, setAsking] = useState(false);
  return (
    <li className="trunk-secret" data-secret="webhook_url">
      <div className="trunk-secret-line">
        <span className="trunk-secret-name">Webhook URL</span>
        {destination.webhook_url ? <code className="trunk-url">{destination.webhook_url}</code> : <span className="muted">None yet</span>}
        <span className="actions">
          {destination.webhook_url ? (
            <button type="button" onClick={() => void navigator.clipboard?.writeText(destination.webhook_url!)}>
              Copy<span className="visually-hidden"> the webhook URL</span>
            </button>
          ) : null}
          {asking ? (
            <span className="confirm" role="group" aria-label="Issue a new webhook URL?">
              <span>The old URL stops working at once.</span>
              <button
                type="button"
                className="danger"
                disabled={patch.isPending}
                onClick={() => {
                  setAsking(false);
                  patch.mutate({ rotate_webhook_token: true });
                }}
              >
                Issue a new URL
              </button>
              <button type="button" onClick={() => setAsking(false)}>
                Keep
              </button>
            </span>
          ) : (
            <button type="button" onClick={() => setAsking(true)}>
              New URL
            </button>
          )}
        </span>
      </div>
      <p className="muted">
        Give it to the provider as the callback address. Last event: {when(destination.webhook_last_event_at)}
        {destination.webhook_last_status ? ` (${destination.webhook_last_status})` : ""}
        {destination.webhook_last_error ? `: ${destination.webhook_last_error}` : ""}.
      </p>
      <TrunkError error={patch.error} />
    </li>
  );
}
