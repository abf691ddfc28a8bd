// Hosted numbers (/app/hosted-numbers): a person who owns a working number points it at the
// platform's hosted-number listener (forward_to), confirms it by calling it once from any phone
// within ten minutes of "Test it" (the listener sees the call and marks it live), and earns a share
// of each caller-ID check it answers, credited to the balance. The list is read every two seconds
// while a number waits for its test call.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { ConfirmButton, Empty, ErrorBox, Field, Loading, PageTitle, Status } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { duration, money, when } from "../../lib/format.ts";
import { refreshMoney } from "../billing/keys.ts";
import { COVERAGE, countryName, HOSTED, namesOnly, plainError, type Coverage, type HostedNumber } from "../cli/shared.tsx";
import { useNow } from "../live/shared.ts";

const FORM_FIELDS = ["number", "country", "reach_by"];

const listening = (n: HostedNumber, now: number) => !!n.awaiting_test_call_until && Date.parse(n.awaiting_test_call_until) > now;

export default function HostedNumbersPage() {
  const coverage = useQuery({ queryKey: COVERAGE, queryFn: () => must(api.GET("/customer/cli/coverage")) });
  const list = useQuery({
    queryKey: HOSTED,
    queryFn: () => must(api.GET("/customer/hosted-numbers", { params: { query: { limit: 200 } } })),
    refetchInterval: (query) => (query.state.data?.items.some((n) => listening(n, Date.now())) ? 2_000 : false),
    staleTime: 0,
  });
  const items = list.data?.items ?? [];
  const earned = items.reduce((sum, n) => sum + n.earnings_usd, 0);
  return (
    <div className="hosted-area">
      <PageTitle>Hosted numbers</PageTitle>
      <About coverage={coverage.data} />
      <EnrolForm />
      <section aria-labelledby="hosted-list">
        <h2 id="hosted-list">Your hosted numbers</h2>
        {list.isPending ? <Loading what="Reading your hosted numbers" /> : null}
        <ErrorBox error={list.error} />
        {list.data && !items.length ? <Empty>No hosted number yet. Enrol one above.</Empty> : null}
        {items.length ? (
          <p data-testid="hosted-total">
            {items.length === 1 ? "One number" : `${items.length} numbers`}, {items.reduce((sum, n) => sum + n.checks_answered, 0)} checks
            answered, {money(earned)} earned in all.
          </p>
        ) : null}
        {items.map((n) => (
          <NumberCard key={n.id} number={n} />
        ))}
      </section>
    </div>
  );
}

function About({ coverage }: { coverage: Coverage | undefined }) {
  const share = coverage
    ? `${coverage.hosted_share_percent}% of each check's fee (${money((coverage.fee_usd * coverage.hosted_share_percent) / 100)})`
    : "a share of each check's fee";
  return (
    <section className="card" aria-labelledby="hosted-how">
      <h2 id="hosted-how">Earn from a number you own</h2>
      <p>
        <Link href="/cli">Caller ID checks</Link> call numbers the platform holds, in the country a customer asks for. Own a working number
        somewhere? Point it at the platform: each check it answers earns you {share}, credited to your balance.
      </p>
      <ol className="hosted-steps">
        <li>Enrol the number below.</li>
        <li>At the provider of the number, forward its calls to the SIP address shown for it.</li>
        <li>
          Press <strong>Test it</strong>, then call the number from any phone within ten minutes. When the call reaches the platform, the
          number is live and takes checks.
        </li>
      </ol>
      <p className="muted">A number that misses several checks in a row is marked down and takes none until you test it again.</p>
    </section>
  );
}

function EnrolForm() {
  const queries = useQueryClient();
  const [number, setNumber] = useState("");
  const [country, setCountry] = useState("");
  const [reachBy, setReachBy] = useState("");
  const enrol = useMutation({
    mutationFn: () =>
      must(
        api.POST("/customer/hosted-numbers", {
          body: {
            number: number.trim(),
            ...(country.trim() ? { country: country.trim() } : {}),
            ...(reachBy.trim() ? { reach_by: reachBy.trim() } : {}),
          },
        }),
      ),
    onSuccess: () => {
      featureUsed("hosted_number.enrol");
      setNumber("");
      setCountry("");
      setReachBy("");
      void queries.invalidateQueries({ queryKey: HOSTED });
    },
  });
  const error = plainError(enrol.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    enrol.mutate();
  };
  return (
    <section className="card" aria-labelledby="hosted-enrol">
      <h2 id="hosted-enrol">Enrol a number</h2>
      <form onSubmit={submit} noValidate>
        <div className="grid">
          <Field
            label="Number"
            name="number"
            value={number}
            onChange={(event) => setNumber(event.target.value)}
            inputMode="tel"
            autoComplete="off"
            placeholder="+442079460123"
            required
            error={error}
            hint="In international form, with its country code."
          />
          <Field
            label="Country (optional)"
            name="country"
            value={country}
            onChange={(event) => setCountry(event.target.value.toUpperCase())}
            autoComplete="off"
            placeholder="GB"
            maxLength={2}
            error={error}
            hint="Two letters. Left empty: the number's own country."
          />
          <Field
            label="How its calls reach the platform (optional)"
            name="reach_by"
            value={reachBy}
            onChange={(event) => setReachBy(event.target.value)}
            autoComplete="off"
            placeholder="forwarded by my provider"
            maxLength={300}
            error={error}
          />
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={enrol.isPending || !number.trim()}>
            {enrol.isPending ? "Enrolling…" : "Enrol the number"}
          </button>
        </div>
        {enrol.isError && !namesOnly(error, FORM_FIELDS) ? <ErrorBox error={error} /> : null}
      </form>
    </section>
  );
}

function CopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    void navigator.clipboard
      ?.writeText(value)
      .then(() => setCopied(true))
      .catch(() => setCopied(false));
  return (
    <button type="button" onClick={copy} aria-label={`Copy ${what}`}>
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

function NumberCard({ number: n }: { number: HostedNumber }) {
  const queries = useQueryClient();
  const headingId = `hosted-${n.id}`;
  const refresh = (row: HostedNumber) =>
    queries.setQueryData<{ items: HostedNumber[] }>(HOSTED, (list) =>
      list ? { ...list, items: list.items.map((item) => (item.id === row.id ? row : item)) } : list,
    );
  const test = useMutation({
    mutationFn: () => must(api.POST("/customer/hosted-numbers/{hosted_number_id}/test", { params: { path: { hosted_number_id: n.id } } })),
    onSuccess: (row) => {
      featureUsed("hosted_number.test");
      refresh(row);
      void queries.invalidateQueries({ queryKey: HOSTED });
    },
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE("/customer/hosted-numbers/{hosted_number_id}", { params: { path: { hosted_number_id: n.id } } })),
    onSuccess: () => {
      featureUsed("hosted_number.remove");
      void queries.invalidateQueries({ queryKey: HOSTED });
      void queries.invalidateQueries({ queryKey: COVERAGE });
      void refreshMoney(queries);
    },
  });
  const now = useNow(1_000, !!n.awaiting_test_call_until);
  const open = listening(n, now);
  const left = n.awaiting_test_call_until ? Math.max(0, Math.ceil((Date.parse(n.awaiting_test_call_until) - now) / 1000)) : 0;

  return (
    <article className="card hosted-number" aria-labelledby={headingId} data-testid="hosted-number" data-status={n.status}>
      <header className="hosted-head">
        <h3 id={headingId}>{n.number}</h3>
        <Status value={n.status} />
      </header>
      <p>{statusText(n)}</p>
      <dl className="facts">
        <dt>Country</dt>
        <dd>{countryName(n.country)}</dd>
        <dt>Forward its calls to</dt>
        <dd className="hosted-forward">
          <code data-testid="forward-to">{n.forward_to}</code> <CopyButton value={n.forward_to} what={`the SIP address for ${n.number}`} />
        </dd>
        {n.reach_by ? (
          <>
            <dt>Reaches the platform by</dt>
            <dd>{n.reach_by}</dd>
          </>
        ) : null}
        <dt>Checks answered</dt>
        <dd data-testid="checks-answered">{n.checks_answered}</dd>
        <dt>Earnings</dt>
        <dd data-testid="earnings">{money(n.earnings_usd)}</dd>
        <dt>Live since</dt>
        <dd>{when(n.confirmed_at)}</dd>
        <dt>Last check answered</dt>
        <dd>{when(n.last_answered_at)}</dd>
        <dt>Enrolled</dt>
        <dd>{when(n.created_at)}</dd>
      </dl>
      {open ? (
        <div className="banner info hosted-window" data-testid="test-window">
          <p>
            <strong>Call {n.number} from any phone now.</strong> The platform listens for that call until {when(n.awaiting_test_call_until)}
            : when it arrives, the number is marked live. The call is answered with a short tone, then hung up.
          </p>
          <p role="timer">{duration(left)} left.</p>
        </div>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className={n.status === "live" ? undefined : "primary"}
          onClick={() => test.mutate()}
          disabled={test.isPending || remove.isPending}
          aria-describedby={headingId}
        >
          {test.isPending ? "Opening…" : open ? "Test it again" : "Test it"}
        </button>
        <ConfirmButton
          question={`Stop hosting ${n.number}? It leaves coverage at once; its earnings stay on your balance.`}
          confirm="Remove it"
          label={`Remove ${n.number}`}
          onConfirm={() => remove.mutate()}
          busy={test.isPending || remove.isPending}
          describedBy={headingId}
        >
          Remove
        </ConfirmButton>
      </div>
      <ErrorBox error={plainError(test.error ?? remove.error)} />
    </article>
  );
}

function statusText(n: HostedNumber): string {
  if (n.status === "live") return "Live: it takes checks, and earns from each one it answers.";
  if (n.status === "down")
    return "Down: it missed checks in a row, so it takes none now. Make sure its calls still reach the platform, then test it again.";
  return "Pending: it takes no check until a call to it reaches the platform. Forward its calls, then test it.";
}
