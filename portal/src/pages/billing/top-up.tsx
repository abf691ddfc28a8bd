// Adding credit by card: a preset or another amount opens the payment provider's checkout
// (POST /customer/payments/checkout), and the browser goes there; the provider sends it back to
// /app/billing?checkout=success (or =cancelled), and its signed event credits the balance.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { api, must } from "../../api/client.ts";
import { ErrorBox, Field, fieldError, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { money } from "../../lib/format.ts";
import { PAYMENTS_CONFIG_KEY, refreshMoney } from "./keys.ts";

export function TopUp() {
  const config = useQuery({ queryKey: PAYMENTS_CONFIG_KEY, queryFn: () => must(api.GET("/customer/payments/config")), staleTime: 300_000 });
  const [other, setOther] = useState("");
  const pay = useMutation({
    mutationFn: (amount: number | string) => must(api.POST("/customer/payments/checkout", { body: { amount } })),
    onSuccess: (session) => {
      featureUsed("billing.top_up");
      window.location.assign(session.url);
    },
  });
  const submitOther = (event: FormEvent) => {
    event.preventDefault();
    pay.mutate(other.trim());
  };
  return (
    <section className="card" aria-labelledby="top-up-heading" id="top-up">
      <h2 id="top-up-heading">Add credit</h2>
      {config.isPending ? <Loading what="Loading the payment options" /> : null}
      <ErrorBox error={config.error} />
      {config.data && !config.data.enabled ? <p>Card payments are not available here: ask support to add credit to the account.</p> : null}
      {config.data?.enabled ? (
        <>
          <p className="muted">
            Pay by card on the payment provider&apos;s page; you come back here, and the credit shows in the balance once the provider
            confirms the payment.
          </p>
          <div className="actions topup-presets" role="group" aria-label="Preset amounts">
            {config.data.preset_amounts.map((amount) => (
              <button key={amount} type="button" className="primary" disabled={pay.isPending} onClick={() => pay.mutate(amount)}>
                Add {money(amount)}
              </button>
            ))}
          </div>
          <form className="inline-form" onSubmit={submitOther} aria-label="Another amount">
            <Field
              label={`Another amount (US$, at least ${config.data.min_custom_amount})`}
              name="amount"
              type="number"
              inputMode="decimal"
              min={config.data.min_custom_amount}
              step="0.01"
              required
              value={other}
              onChange={(e) => setOther(e.target.value)}
              error={pay.error}
            />
            <button type="submit" disabled={pay.isPending}>
              {pay.isPending ? "Opening the checkout…" : "Pay by card"}
            </button>
          </form>
          {fieldError(pay.error, "amount") ? null : <ErrorBox error={pay.error} />}
        </>
      ) : null}
    </section>
  );
}

/** What the page says when the payment provider sends the browser back. */
export function CheckoutReturn({ outcome, onDismiss }: { outcome: "success" | "cancelled"; onDismiss: () => void }) {
  const queries = useQueryClient();
  useEffect(() => {
    if (outcome === "success") void refreshMoney(queries);
  }, [outcome, queries]);
  return (
    <div className={`banner ${outcome === "success" ? "info" : "warn"} checkout-return`} role="status">
      <span>
        {outcome === "success"
          ? "Thank you: the payment is complete. The balance below includes it as soon as the payment provider confirms it."
          : "The checkout was cancelled: nothing was charged."}
      </span>
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
