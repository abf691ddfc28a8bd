// The plans side by side (GET /plans), the account's marked current, and buying one
// (POST /customer/plan): the first month's fee comes out of the balance at once, after a
// confirmation. A balance too small for the fee (402) says to top up first, and offers to pay the
// first month by card instead (POST /customer/payments/subscribe).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { count, money } from "../../lib/format.ts";
import { PLANS_KEY, refreshMoney } from "./keys.ts";

type Plan = Schemas["Plan"];
type Balance = Schemas["Balance"];

export const TOP_UP_FIRST = "Top up first: the first month's fee is more than your balance";

export function Plans({ balance }: { balance: Balance }) {
  const plans = useQuery({ queryKey: PLANS_KEY, queryFn: () => must(api.GET("/plans")), staleTime: 300_000 });
  const [choosing, setChoosing] = useState<string | null>(null);
  const [bought, setBought] = useState<string | null>(null);
  return (
    <section className="card" aria-labelledby="plans-heading">
      <h2 id="plans-heading">Plans</h2>
      <p className="muted">
        A plan&apos;s fee is charged from the balance when you choose it and again every month; its ports, included minutes and rate apply
        at once. When the balance does not cover a renewal, the account goes back to pay-as-you-go.
      </p>
      {bought ? (
        <p role="status" className="plan-bought">
          You are now on the {bought} plan.
        </p>
      ) : null}
      {plans.isPending ? <Loading what="Loading the plans" /> : null}
      <ErrorBox error={plans.error} />
      {plans.data ? (
        <ul className="plans">
          {plans.data.map((plan) => (
            <PlanCard
              key={plan.code}
              plan={plan}
              balance={balance}
              current={plan.code === balance.plan}
              choosing={choosing === plan.code}
              onChoose={() => {
                setBought(null);
                setChoosing(plan.code);
              }}
              onCancel={() => setChoosing(null)}
              onBought={() => {
                setChoosing(null);
                setBought(plan.name);
              }}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function PlanCard(props: {
  plan: Plan;
  balance: Balance;
  current: boolean;
  choosing: boolean;
  onChoose: () => void;
  onCancel: () => void;
  onBought: () => void;
}) {
  const { plan, balance, current } = props;
  const headingId = `plan-${plan.code}`;
  return (
    <li className={current ? "plan current" : "plan"} data-plan={plan.code}>
      <h3 id={headingId}>
        {plan.name}
        {current ? <span className="badge plan-current">Current plan</span> : null}
      </h3>
      <p className="plan-fee">{plan.monthly_fee > 0 ? `${money(plan.monthly_fee)} a month` : "No monthly fee"}</p>
      <dl className="facts">
        <dt>Concurrent calls</dt>
        <dd>{count(plan.ports)}</dd>
        <dt>Included minutes</dt>
        <dd>{plan.included_minutes === null ? "None" : `${count(plan.included_minutes)} a month`}</dd>
        <dt>{plan.included_minutes === null ? "Per minute" : "Per minute beyond"}</dt>
        <dd>{money(plan.per_minute_rate)}</dd>
        <dt>Shortest billed call</dt>
        <dd>{plan.min_billable_seconds} seconds</dd>
      </dl>
      {plan.description ? <p className="muted">{plan.description}</p> : null}
      {current ? null : props.choosing ? (
        <ConfirmPlan plan={plan} balance={balance} onCancel={props.onCancel} onBought={props.onBought} />
      ) : (
        <button type="button" onClick={props.onChoose} aria-describedby={headingId}>
          Choose {plan.name}
        </button>
      )}
    </li>
  );
}

function ConfirmPlan({ plan, balance, onCancel, onBought }: { plan: Plan; balance: Balance; onCancel: () => void; onBought: () => void }) {
  const queries = useQueryClient();
  const buy = useMutation({
    mutationFn: () => must(api.POST("/customer/plan", { body: { plan_code: plan.code } })),
    onSuccess: async () => {
      featureUsed("billing.plan");
      await refreshMoney(queries);
      onBought();
    },
  });
  const byCard = useMutation({
    mutationFn: () => must(api.POST("/customer/payments/subscribe", { body: { plan_code: plan.code } })),
    onSuccess: (session) => {
      featureUsed("billing.plan_by_card");
      window.location.assign(session.url);
    },
  });
  const short = buy.error instanceof ApiError && buy.error.status === 402;
  const paid = plan.monthly_fee > 0;
  return (
    <div className="plan-confirm" role="group" aria-label={`Buy the ${plan.name} plan`}>
      <p>
        {paid
          ? `${money(plan.monthly_fee)} is charged from your balance (${money(balance.balance)}) now, and a new month starts today.`
          : "The paid plan ends now, without a refund of this month's fee; every minute is then billed at the pay-as-you-go rate."}
      </p>
      <div className="actions">
        <button type="button" className="primary" disabled={buy.isPending} onClick={() => buy.mutate()}>
          {paid ? `Buy ${plan.name}` : `Switch to ${plan.name}`}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {short ? (
        <div className="plan-short" role="alert">
          <p className="error">{TOP_UP_FIRST}.</p>
          <div className="actions">
            <a href="#top-up">Add credit</a>
            <button type="button" disabled={byCard.isPending} onClick={() => byCard.mutate()}>
              Pay the first month by card
            </button>
          </div>
          <ErrorBox error={byCard.error} />
        </div>
      ) : (
        <ErrorBox error={buy.error} />
      )}
    </div>
  );
}
