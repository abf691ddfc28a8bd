// A destination's form as state: the draft of every field as typed (a new destination's, or one
// read from a destination to change), the bodies POST and PATCH carry, and the binding of a box to
// one field of the draft.
import type { ChangeEvent } from "react";
import type { Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import type { Kind, Processing, SampleMode, TransferMode, Transport } from "./destination-choices.ts";
import { orNull, type Destination } from "./shared.tsx";

type ProviderKey = NonNullable<Schemas["CreateDestination"]["provider"]>;

/** Every field the form names; a 422 of any other lands in the error below the form. */
export const FORM_FIELDS = [
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

export type Draft = {
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

export const NEW: Draft = {
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

export const draftOf = (d: Destination): Draft => ({
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
export function fieldsOf(draft: Draft) {
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
export function secretsOf(draft: Draft) {
  const secrets: Record<string, string> = {};
  for (const name of ["auth_username", "auth_password", "auth_realm", "webhook_secret", "provider_api_key"] as const) {
    if (draft[name].trim() !== "") secrets[name] = name === "auth_password" ? draft[name] : draft[name].trim();
  }
  return secrets;
}

/** What each group of the form's fields is given: the draft, its setter, and the save's error (a 422 shows beside its field). */
export type DraftProps = { draft: Draft; set: (changes: Partial<Draft>) => void; error: unknown };

type NameOf<T> = { [K in keyof Draft]: Draft[K] extends T ? K : never }[keyof Draft];

/** A text box, a select or a text area bound to one field of the draft. */
export const boxOf = ({ draft, set, error }: DraftProps, name: NameOf<string>) => ({
  name,
  value: draft[name],
  onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => set({ [name]: e.target.value }),
  error,
});

/** A checkbox bound to one field of the draft. */
export const checkOf = ({ draft, set, error }: DraftProps, name: NameOf<boolean>) => ({
  name,
  checked: draft[name],
  onChange: (e: ChangeEvent<HTMLInputElement>) => set({ [name]: e.target.checked }),
  error,
});
