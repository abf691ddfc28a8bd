// What the trunk page's sections share: the queries (destinations are named by the whitelist and
// the routing rules), how a destination is named, a checkbox field, a delete that asks first, and
// the trunk's own errors in words (a range of another account, a busy whitelist).
import { useQuery } from "@tanstack/react-query";
import { api, must, type Schemas } from "../../api/client.ts";
import { destinationName, destinationsKey, type Destination } from "../../api/destinations.ts";
import { ApiError } from "../../api/errors.ts";
import { ConfirmButton, ErrorBox } from "../../components/ui.tsx";

export { destinationName, useDestinations, type Destination } from "../../api/destinations.ts";
export { CheckField } from "../../components/ui.tsx";

export type IpEntry = Schemas["IpEntry"];
export type RoutingRule = Schemas["RoutingRule"];
export type VoiceProvider = Schemas["VoiceProvider"];
export type NetworkInfo = Schemas["NetworkInfo"];

export const keys = {
  network: ["trunk", "network-info"],
  ips: ["trunk", "ips"],
  destinations: destinationsKey,
  rules: ["trunk", "routing-rules"],
  providers: ["trunk", "voice-providers"],
} as const;

export const useNetworkInfo = () =>
  useQuery({ queryKey: keys.network, queryFn: () => must(api.GET("/customer/network-info")), staleTime: 300_000 });
export const useIps = () => useQuery({ queryKey: keys.ips, queryFn: () => must(api.GET("/customer/ips")) });
export const useRules = () => useQuery({ queryKey: keys.rules, queryFn: () => must(api.GET("/customer/routing-rules")) });
export const useVoiceProviders = () =>
  useQuery({ queryKey: keys.providers, queryFn: () => must(api.GET("/customer/voice-providers")), staleTime: Infinity });

/** The destination of `id` by name, or a note that it is gone. */
export function DestinationRef({ id, destinations }: { id: string | null | undefined; destinations: Destination[] | undefined }) {
  if (!id) return <span className="muted">—</span>;
  const found = destinations?.find((d) => d.id === id);
  return found ? <>{destinationName(found)}</> : <span className="muted">Unknown destination</span>;
}

/** The <option>s of the account's destinations (the default one marked). */
export function DestinationOptions({ destinations }: { destinations: Destination[] | undefined }) {
  return (
    <>
      {(destinations ?? []).map((d) => (
        <option key={d.id} value={d.id}>
          {destinationName(d)}
          {d.is_default ? " (default)" : ""}
        </option>
      ))}
    </>
  );
}

/**
 * The API's refusal in the trunk's words: a 503 of the whitelist asks for a retry, a 409 says whose
 * the range is. Field errors (422) are shown next to their fields: `fields` names the ones this
 * form shows, so that only the others land here.
 */
export function TrunkError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    if (error.status === 422 && Object.keys(error.fields).length > 0 && Object.keys(error.fields).every((f) => fields.includes(f)))
      return null;
    if (error.status === 503) {
      return (
        <p className="error" role="alert">
          {error.message}: the whitelist is being changed elsewhere this instant. Nothing is lost; try again in a few seconds.
        </p>
      );
    }
    if (error.status === 409 && /another account/i.test(error.message)) {
      return (
        <p className="error" role="alert">
          {error.message}. A range belongs to one account only: check the address, or delete the range from the other account first.
        </p>
      );
    }
    if (error.status === 429) {
      return (
        <p className="error" role="alert">
          {error.message}
          {error.retryAfter ? `: try again in ${error.retryAfter} s` : ""}.
        </p>
      );
    }
  }
  return <ErrorBox error={error} />;
}

/** A Delete button that asks once more, in place. */
export function DeleteButton({
  what,
  onDelete,
  busy,
  describedBy,
}: {
  what: string;
  onDelete: () => void;
  busy?: boolean;
  describedBy?: string;
}) {
  return (
    <ConfirmButton
      question={`Delete ${what}?`}
      label={`Delete ${what}?`}
      confirm="Yes, delete"
      keep="Keep"
      onConfirm={onDelete}
      busy={busy}
      describedBy={describedBy}
    >
      Delete
    </ConfirmButton>
  );
}

/** An empty text box is "none" (null) for the API. */
export const orNull = (text: string) => (text.trim() === "" ? null : text.trim());
