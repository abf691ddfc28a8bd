// Caller-ID checks (/app/cli): does a route deliver the caller ID as sent? The platform places a
// short call through one of the account's destinations, presenting the caller ID to prove, to a
// number it holds in the country asked for, and shows what that number saw. The page: coverage and
// the fee, the form, the result of the check opened (?check=<id>, read every two seconds while it
// is placing), the history with its filters, and schedules.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, PageTitle } from "../../components/ui.tsx";
import { money } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { CheckForm, checkKey } from "./check-form.tsx";
import { CheckResult } from "./check-result.tsx";
import { History } from "./history.tsx";
import { Schedules } from "./schedules.tsx";
import { COVERAGE, countryName, type Coverage } from "./shared.tsx";

export default function CliPage() {
  const url = useUrlState();
  const coverage = useQuery({ queryKey: COVERAGE, queryFn: () => must(api.GET("/customer/cli/coverage")) });
  const opened = url.get("check") || null;
  const open = (id: string) => url.set({ check: id }, { keepOffset: true });
  return (
    <div className="cli-area">
      <PageTitle>Caller ID checks</PageTitle>
      <p className="muted">
        Does a route deliver your caller ID as you send it? A check places a short call through one of your destinations, showing the caller
        ID you want to prove, to a number the platform holds in the country you choose, and tells you what that number saw: the same number,
        a changed one, a withheld one, none, or no call at all, with the call&apos;s timing and audio quality.
      </p>
      <CoverageCard coverage={coverage.data} error={coverage.error} pending={coverage.isPending} />
      <CheckForm coverage={coverage.data} onAsked={(check) => open(check.id)} />
      {opened ? <OpenedCheck id={opened} /> : null}
      <History open={opened} onOpen={open} />
      <Schedules coverage={coverage.data} onOpen={open} />
    </div>
  );
}

function CoverageCard({ coverage, error, pending }: { coverage: Coverage | undefined; error: unknown; pending: boolean }) {
  return (
    <section className="card" aria-labelledby="cli-coverage">
      <h2 id="cli-coverage">Where a check can call now</h2>
      {pending ? <Loading what="Reading the coverage" /> : null}
      <ErrorBox error={error} />
      {coverage && !coverage.countries.length ? (
        <Empty>No number takes checks now: the platform holds none, and no hosted number is live.</Empty>
      ) : null}
      {coverage?.countries.length ? (
        <div className="table-wrap">
          <table aria-label="Countries covered">
            <thead>
              <tr>
                <th scope="col">Country</th>
                <th scope="col" className="num">
                  Numbers
                </th>
                <th scope="col" className="num">
                  The platform&apos;s
                </th>
                <th scope="col" className="num">
                  Hosted by users
                </th>
              </tr>
            </thead>
            <tbody>
              {coverage.countries.map((c) => (
                <tr key={c.country} data-testid="cli-coverage-row" data-country={c.country}>
                  <th scope="row">{countryName(c.country)}</th>
                  <td className="num">{c.numbers}</td>
                  <td className="num">{c.platform_numbers}</td>
                  <td className="num">{c.hosted_numbers}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {coverage ? (
        <p>
          Each check costs <strong data-testid="cli-coverage-fee">{money(coverage.fee_usd)}</strong>. Own a number in a country? Point it at
          the platform and earn {coverage.hosted_share_percent}% of each check it answers: <Link href="/hosted-numbers">host a number</Link>
          .
        </p>
      ) : null}
    </section>
  );
}

function OpenedCheck({ id }: { id: string }) {
  const check = useQuery({
    queryKey: checkKey(id),
    queryFn: () => must(api.GET("/customer/cli/checks/{check_id}", { params: { path: { check_id: id } } })),
    refetchInterval: (query) => (query.state.data?.status === "placing" ? 2_000 : false),
    staleTime: 0,
  });
  if (check.isPending) return <Loading what="Reading the check" />;
  if (!check.data) return <ErrorBox error={check.error} />;
  return <CheckResult check={check.data} headingId="cli-opened" />;
}
