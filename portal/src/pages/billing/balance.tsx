// The balance and the plan in figures (GET /customer/balance).
import type { Schemas } from "../../api/client.ts";
import { count, money, when } from "../../lib/format.ts";

type Balance = Schemas["Balance"];

export function BalanceCard({ balance }: { balance: Balance }) {
  const minutes = Math.round(balance.cycle_minutes_used * 100) / 100;
  return (
    <section aria-labelledby="balance-heading">
      <h2 id="balance-heading" className="visually-hidden">
        Balance and plan
      </h2>
      <dl className="stats billing-stats">
        <div className="stat">
          <dt className="label">Balance</dt>
          <dd className="value" data-testid="balance" data-value={balance.balance}>
            {money(balance.balance)}
          </dd>
        </div>
        <div className="stat">
          <dt className="label">Plan</dt>
          <dd className="value" data-testid="plan" data-value={balance.plan}>
            {balance.plan_name}
          </dd>
        </div>
        <div className="stat">
          <dt className="label">Calls now / ports</dt>
          <dd className="value">
            {count(balance.active_calls)} / {count(balance.ports)}
          </dd>
        </div>
        <div className="stat">
          <dt className="label">Minutes this cycle</dt>
          <dd className="value">
            {balance.included_minutes === null ? count(minutes) : `${count(minutes)} of ${count(balance.included_minutes)}`}
          </dd>
        </div>
        <div className="stat">
          <dt className="label">{balance.included_minutes === null ? "Per minute" : "Per minute beyond"}</dt>
          <dd className="value">{money(balance.per_minute_rate)}</dd>
        </div>
        <div className="stat">
          <dt className="label">Renews</dt>
          <dd className="value small">{balance.plan_renews_at ? when(balance.plan_renews_at) : "No monthly fee"}</dd>
        </div>
      </dl>
    </section>
  );
}
