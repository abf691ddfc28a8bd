// The dashboard (GET /customer/dashboard): the account's calls, risk, minutes and spend over the
// last 7, 30, 90 or 366 UTC days (?days= in the URL), its balance and plan, the calls on the wire,
// charts per day, the risk buckets, the countries called and the newest high-risk calls. Every
// figure is the API's own number, written out whole (a browser test compares them).
import { useQuery } from "@tanstack/react-query";
import { useMemo, type ReactNode } from "react";
import { Link } from "wouter";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, PageTitle, Probability, Recommendation } from "../../components/ui.tsx";
import { when, words } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { BarTable, type BarRow } from "./bar-table.tsx";
import { DailyChart, dayOf, type DailySeries } from "./charts.tsx";

const PERIODS = [
  [7, "7 days"],
  [30, "30 days"],
  [90, "90 days"],
  [366, "A year"],
] as const;
const DEFAULT_DAYS = 30;

/** Money to the micro-dollar the ledger keeps, so the page never rounds the API's figure. */
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 6 });
const exactMoney = (n: number) => usd.format(n);
/** A count or a figure with up to 6 decimals, grouped the reader's way. */
const exactNumber = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 6 });
const wholeNumber = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 0 });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** ?days= as the API takes it (1-366); anything else reads as the default period. */
function daysOf(raw: string): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 366 ? n : DEFAULT_DAYS;
}

export default function DashboardPage() {
  const url = useUrlState();
  const days = daysOf(url.get("days"));
  const dashboard = useQuery({
    queryKey: ["dashboard", days],
    queryFn: () => must(api.GET("/customer/dashboard", { params: { query: { days } } })),
  });

  return (
    <>
      <PageTitle
        actions={
          <>
            <div className="chips dash-period" role="group" aria-label="Period">
              {PERIODS.map(([n, label]) => (
                <button key={n} type="button" aria-pressed={days === n} onClick={() => url.set({ days: n === DEFAULT_DAYS ? "" : n })}>
                  {label}
                </button>
              ))}
            </div>
            <button type="button" onClick={() => void dashboard.refetch()} disabled={dashboard.isFetching}>
              Refresh
            </button>
          </>
        }
      >
        Dashboard
      </PageTitle>
      {dashboard.isPending ? (
        <Loading what="Loading the dashboard" />
      ) : dashboard.isError ? (
        <ErrorBox error={dashboard.error} />
      ) : (
        <Overview data={dashboard.data} />
      )}
    </>
  );
}

function Stat({
  label,
  testId,
  value,
  text,
  children,
}: {
  label: string;
  testId: string;
  value: number;
  text: string;
  children?: ReactNode;
}) {
  return (
    <div className="stat">
      <div className="label">{label}</div>
      <div className="value" data-testid={testId} data-value={value}>
        {text}
      </div>
      {children ? <div className="dash-stat-more">{children}</div> : null}
    </div>
  );
}

function Overview({ data }: { data: Schemas["Dashboard"] }) {
  const period = data.days === 1 ? "today" : `the last ${data.days} days`;
  const dates = useMemo(() => data.calls_per_day.map((d) => d.date), [data]);
  const callSeries = useMemo<DailySeries[]>(
    () => [
      { label: "Calls", values: data.calls_per_day.map((d) => d.calls), color: "#0b5cad", fill: "rgba(11, 92, 173, 0.35)" },
      { label: "High risk", values: data.calls_per_day.map((d) => d.high_risk), color: "#a4161a", fill: "rgba(164, 22, 26, 0.8)" },
    ],
    [data],
  );
  const spendDates = useMemo(() => data.spend_per_day.map((d) => d.date), [data]);
  const spendSeries = useMemo<DailySeries[]>(
    () => [{ label: "Spend (USD)", values: data.spend_per_day.map((d) => d.spend), color: "#1d6b34", fill: "rgba(29, 107, 52, 0.45)" }],
    [data],
  );
  const risk: BarRow[] = data.risk_distribution.map((b) => ({
    key: b.bucket,
    label: b.bucket === "70-100" ? "High (70–100)" : b.bucket === "30-69" ? "Medium (30–69)" : "Low (0–29)",
    count: b.count,
    tone: b.bucket === "70-100" ? "high" : b.bucket === "30-69" ? "medium" : "low",
  }));
  const countries: BarRow[] = data.calls_by_country.map((c) => ({
    key: c.code ?? "unknown",
    label: (
      <>
        {c.name}
        {c.code ? <span className="muted"> {c.code}</span> : null}
      </>
    ),
    count: c.count,
  }));
  const plan = data.plan;
  const highRiskLink = `/calls?min_probability=70&from=${encodeURIComponent(data.from)}`;

  return (
    <>
      <p className="muted">
        Figures for {period}: UTC days since {dayOf(data.from.slice(0, 10))}.
      </p>
      <div className="stats">
        <Stat label="Calls today (UTC)" testId="dash-calls-today" value={data.calls_today} text={exactNumber(data.calls_today)} />
        <Stat label={`Calls, ${period}`} testId="dash-calls-period" value={data.calls_period} text={exactNumber(data.calls_period)} />
        <Stat label="High-risk share" testId="dash-high-risk" value={data.high_risk_pct} text={`${exactNumber(data.high_risk_pct)}%`}>
          of analysed calls, probability 70 or more
        </Stat>
        <Stat label={`Minutes, ${period}`} testId="dash-minutes" value={data.minutes_period} text={exactNumber(data.minutes_period)} />
        <Stat label={`Spend, ${period}`} testId="dash-spend" value={data.spend_period} text={exactMoney(data.spend_period)} />
        <Stat label="Balance" testId="dash-balance" value={data.balance} text={exactMoney(data.balance)} />
        <Stat label="Active calls" testId="dash-active-calls" value={data.active_calls} text={exactNumber(data.active_calls)}>
          <Link href="/live">Watch live calls</Link>
        </Stat>
      </div>

      <div className="cols">
        <section className="card dash-col" aria-labelledby="dash-calls-h">
          <h2 id="dash-calls-h">Calls per day</h2>
          <DailyChart title="Calls and high-risk calls per UTC day" dates={dates} series={callSeries} format={wholeNumber} integers />
        </section>
        <section className="card dash-col" aria-labelledby="dash-spend-h">
          <h2 id="dash-spend-h">Spend per day</h2>
          <DailyChart title="Spend per UTC day in US dollars" dates={spendDates} series={spendSeries} format={exactMoney} />
        </section>
      </div>

      <div className="cols">
        <section className="card dash-col" aria-labelledby="dash-risk-h">
          <h2 id="dash-risk-h">Risk of analysed calls</h2>
          <BarTable caption={`Analysed calls by fraud probability, ${period}`} head="Probability" rows={risk} />
        </section>
        <section className="card dash-col" aria-labelledby="dash-plan-h">
          <h2 id="dash-plan-h">Plan</h2>
          <dl className="facts">
            <dt>Plan</dt>
            <dd>{plan.name}</dd>
            <dt>Ports</dt>
            <dd>{plan.ports.toLocaleString()}</dd>
            <dt>Included minutes</dt>
            <dd>{plan.included_minutes === null ? "None" : plan.included_minutes.toLocaleString()}</dd>
            <dt>Minutes used this cycle</dt>
            <dd data-testid="dash-cycle-minutes" data-value={data.cycle_minutes_used}>
              {data.cycle_minutes_used.toLocaleString(undefined, { maximumFractionDigits: 2 })}
              {plan.included_minutes ? ` of ${plan.included_minutes.toLocaleString()}` : ""}
            </dd>
            <dt>Renews</dt>
            <dd>{plan.renews_at ? dateOnly.format(new Date(plan.renews_at)) : "—"}</dd>
            <dt>Balance</dt>
            <dd>{exactMoney(data.balance)}</dd>
          </dl>
        </section>
      </div>

      <section className="card" aria-labelledby="dash-country-h">
        <h2 id="dash-country-h">Calls by country called</h2>
        {countries.length ? (
          <BarTable caption={`Calls by the country called, ${period}`} head="Country" rows={countries} />
        ) : (
          <Empty>No calls in {period}.</Empty>
        )}
      </section>

      <section className="card" aria-labelledby="dash-recent-h">
        <div className="page-title dash-section-title">
          <h2 id="dash-recent-h">Recent high-risk calls</h2>
          <Link href={highRiskLink}>All high-risk calls of the period</Link>
        </div>
        {data.recent_high_risk.length ? (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">The newest calls of the period with a fraud probability of 70 or more</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Caller</th>
                  <th scope="col">Dialed</th>
                  <th scope="col" className="num">
                    Probability
                  </th>
                  <th scope="col">Recommendation</th>
                  <th scope="col">Category</th>
                </tr>
              </thead>
              <tbody>
                {data.recent_high_risk.map((call) => (
                  <tr key={call.id}>
                    <td>
                      <Link href={`/calls/${call.id}`}>{when(call.started_at)}</Link>
                    </td>
                    <td>{call.ani ?? "—"}</td>
                    <td>{call.dialed ?? "—"}</td>
                    <td className="num">
                      <Probability value={call.analysis?.probability} />
                    </td>
                    <td>
                      <Recommendation value={call.analysis?.recommendation} />
                    </td>
                    <td>{call.analysis?.title ?? words(call.analysis?.category)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Empty>No high-risk calls in {period}.</Empty>
        )}
      </section>
    </>
  );
}
