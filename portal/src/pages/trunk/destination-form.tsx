// A destination's form, new (POST /customer/destinations) or changed (PATCH): every field of the
// specification. A voice-AI destination picks its provider from GET /customer/voice-providers,
// whose defaults fill host, port and transport and which says what the agent identifier is. The
// secrets (digest credential, webhook secret, provider key) are typed here only for a new
// destination; afterwards they are set and cleared on their own (destination-secrets.tsx).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must } from "../../api/client.ts";
import { featureUsed } from "../../lib/events.ts";
import { draftOf, fieldsOf, FORM_FIELDS, NEW, secretsOf, type Draft } from "./destination-draft.ts";
import { EndpointFields } from "./destination-endpoint-fields.tsx";
import { NewSecrets } from "./destination-new-secrets.tsx";
import { ProcessingFields } from "./destination-processing-fields.tsx";
import { keys, TrunkError, useVoiceProviders, type Destination } from "./shared.tsx";

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

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const bound = { draft, set, error: save.error };
  const title = destination ? `Change destination ${destination.label ?? destination.host}` : "New destination";
  return (
    <form className="trunk-form destination-form" onSubmit={submit} aria-label={title}>
      <EndpointFields {...bound} providers={providers} provider={provider} />
      <ProcessingFields {...bound} />
      {destination ? null : <NewSecrets {...bound} provider={provider} />}
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
