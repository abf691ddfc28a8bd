// The form that asks for a CLI check: the route to test (one of the account's SIP destinations),
// a country the platform holds a number in, and the caller ID to prove (a verified number of the
// account, or the platform's own); the fee is shown before anything is charged.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must } from "../../api/client.ts";
import { useDestinations } from "../../api/destinations.ts";
import { ErrorBox, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { money } from "../../lib/format.ts";
import { refreshMoney } from "../billing/keys.ts";
import { CHECKS, countryName, namesOnly, plainError, routeName, routes, type CliCheck, type Coverage } from "./shared.tsx";

const FORM_FIELDS = ["destination_id", "country", "caller_id"];

export const checkKey = (id: string) => ["cli-check", id] as const;

/** The account's verified numbers (caller IDs it may prove). */
export const useVerifiedNumbers = () =>
  useQuery({ queryKey: ["verified-numbers"], queryFn: () => must(api.GET("/customer/verified-numbers")) });

export function CheckForm({ coverage, onAsked }: { coverage: Coverage | undefined; onAsked: (check: CliCheck) => void }) {
  const queries = useQueryClient();
  const destinations = useDestinations();
  const numbers = useVerifiedNumbers();
  const verified = (numbers.data ?? []).filter((n) => n.verified);
  const choices = routes(destinations.data);
  const countries = coverage?.countries ?? [];

  const [destination, setDestination] = useState<string | null>(null);
  const [country, setCountry] = useState<string | null>(null);
  const [callerId, setCallerId] = useState("");
  const chosenDestination = destination ?? (choices.find((d) => d.is_default) ?? choices[0])?.id ?? "";
  const chosenCountry = country ?? countries[0]?.country ?? "";

  const ask = useMutation({
    mutationFn: () =>
      must(
        api.POST("/customer/cli/checks", {
          body: { destination_id: chosenDestination, country: chosenCountry, ...(callerId ? { caller_id: callerId } : {}) },
        }),
      ),
    onSuccess: (check) => {
      featureUsed("cli_check.ask");
      queries.setQueryData(checkKey(check.id), check);
      void queries.invalidateQueries({ queryKey: CHECKS });
      void refreshMoney(queries);
      onAsked(check);
    },
  });
  const error = plainError(ask.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    ask.mutate();
  };

  return (
    <section className="card" aria-labelledby="cli-ask">
      <h2 id="cli-ask">Run a check</h2>
      <form onSubmit={submit} noValidate>
        <div className="grid">
          <SelectField
            label="Route to test"
            name="destination_id"
            value={chosenDestination}
            onChange={(event) => setDestination(event.target.value)}
            error={error}
            hint={
              destinations.isError
                ? "The destinations could not be read."
                : destinations.data && !choices.length
                  ? "Your account has no SIP destination yet: add one on the Trunk page first."
                  : "The check's call goes out through this destination."
            }
          >
            {destinations.isPending ? <option value="">Reading the destinations…</option> : null}
            {destinations.data && !choices.length ? <option value="">No SIP destination</option> : null}
            {choices.map((d) => (
              <option key={d.id} value={d.id}>
                {routeName(d)}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Country"
            name="country"
            value={chosenCountry}
            onChange={(event) => setCountry(event.target.value)}
            error={error}
            hint={coverage && !countries.length ? "No country takes checks now." : "A number the platform holds there takes the call."}
          >
            {!coverage ? <option value="">Reading the coverage…</option> : null}
            {coverage && !countries.length ? <option value="">No country covered</option> : null}
            {countries.map((c) => (
              <option key={c.country} value={c.country}>
                {countryName(c.country)}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Caller ID to prove"
            name="caller_id"
            value={callerId}
            onChange={(event) => setCallerId(event.target.value)}
            error={error}
            hint={
              numbers.isError
                ? "Your verified numbers could not be read: the platform's own number is sent."
                : "One of your verified numbers (Team and access), or the platform's own."
            }
          >
            <option value="">The platform&apos;s own number</option>
            {verified.map((n) => (
              <option key={n.id} value={n.number}>
                {n.label ? `${n.number} (${n.label})` : n.number}
              </option>
            ))}
          </SelectField>
        </div>
        <p data-testid="cli-fee">
          A check costs <strong>{coverage ? money(coverage.fee_usd) : "…"}</strong>, whatever its result; its call (about ten seconds) is
          billed like any call.
        </p>
        <div className="actions">
          <button type="submit" className="primary" disabled={ask.isPending || !chosenDestination || !chosenCountry}>
            {ask.isPending ? "Asking…" : "Run the check"}
          </button>
        </div>
        {ask.isError && !namesOnly(error, FORM_FIELDS) ? <ErrorBox error={error} /> : null}
      </form>
    </section>
  );
}
