// The low-balance e-mail (GET/PUT /customer/low-balance-alert): on or off, and the threshold in US$.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, Field, fieldError, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { money } from "../../lib/format.ts";
import { LOW_BALANCE_KEY } from "./keys.ts";

type Alert = Schemas["LowBalanceAlert"];

export function LowBalanceAlert() {
  const alert = useQuery({ queryKey: LOW_BALANCE_KEY, queryFn: () => must(api.GET("/customer/low-balance-alert")) });
  return (
    <section className="card" aria-labelledby="low-balance-heading">
      <h2 id="low-balance-heading">Low-balance alert</h2>
      {alert.isPending ? <Loading what="Loading the alert" /> : null}
      <ErrorBox error={alert.error} />
      {alert.data ? <AlertForm alert={alert.data} /> : null}
    </section>
  );
}

function AlertForm({ alert }: { alert: Alert }) {
  const queries = useQueryClient();
  const [enabled, setEnabled] = useState(alert.enabled);
  const [threshold, setThreshold] = useState(String(alert.threshold));
  const save = useMutation({
    mutationFn: () => must(api.PUT("/customer/low-balance-alert", { body: { enabled, threshold: Number(threshold) } })),
    onSuccess: (saved) => {
      featureUsed("billing.low_balance_alert");
      queries.setQueryData(LOW_BALANCE_KEY, saved);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Low-balance alert">
      <p className="muted">
        One e-mail to the account&apos;s address when the balance falls below the threshold; it re-arms once the balance is back.
      </p>
      <div className="check">
        <input id="low-balance-enabled" type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <label htmlFor="low-balance-enabled">E-mail me when the balance runs low</label>
      </div>
      <Field
        label="Threshold (US$)"
        name="threshold"
        type="number"
        inputMode="decimal"
        min={0}
        step="0.01"
        required
        value={threshold}
        onChange={(e) => setThreshold(e.target.value)}
        error={save.error}
      />
      <p className="muted">
        {!alert.enabled
          ? "The alert is off."
          : alert.armed
            ? `Armed: the next fall below ${money(alert.threshold)} sends one e-mail.`
            : `Sent: it re-arms when the balance is back at or above ${money(alert.threshold)}.`}
      </p>
      <button type="submit" className="primary" disabled={save.isPending}>
        Save the alert
      </button>
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      {fieldError(save.error, "threshold") ? null : <ErrorBox error={save.error} />}
    </form>
  );
}
