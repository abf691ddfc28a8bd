// The account's CLI checks, newest first, filtered by route (and by schedule, from a schedule's
// "Its runs"), a page at a time; read every two seconds while one is still placing. Each row opens
// its result card.
import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { api, must } from "../../api/client.ts";
import { useDestinations } from "../../api/destinations.ts";
import { Empty, ErrorBox, Loading, Pager, SelectField, Status } from "../../components/ui.tsx";
import { money, ms, when } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { CHECKS, countryName, destinationLabel, mos, resultName, routeName, type CliCheck } from "./shared.tsx";

const PAGE = 20;

/** What arrived, in one line. */
function receivedText(check: CliCheck): string {
  if (!check.received) return check.status === "placing" ? "waiting" : "nothing";
  if (check.result === "withheld") return `withheld${check.received.from ? ` (${check.received.from})` : ""}`;
  return check.received.from ?? check.received.asserted ?? "no number";
}

export function History({ open, onOpen }: { open: string | null; onOpen: (id: string) => void }) {
  const url = useUrlState();
  const filterId = useId();
  const destinations = useDestinations();
  const destination = url.get("destination");
  const schedule = url.get("schedule");
  const offset = Math.max(0, Number(url.get("offset")) || 0);
  const list = useQuery({
    queryKey: [...CHECKS, { destination, schedule, offset }],
    queryFn: () =>
      must(
        api.GET("/customer/cli/checks", {
          params: {
            query: {
              limit: PAGE,
              offset,
              ...(destination ? { destination_id: destination } : {}),
              ...(schedule ? { schedule_id: schedule } : {}),
            },
          },
        }),
      ),
    refetchInterval: (query) => (query.state.data?.items.some((check) => check.status === "placing") ? 2_000 : false),
    staleTime: 0,
  });
  const items = list.data?.items ?? [];

  return (
    <section aria-labelledby="cli-history">
      <h2 id="cli-history">Your checks</h2>
      <form className="cli-filters" role="search" aria-label="Filter the checks" onSubmit={(event) => event.preventDefault()}>
        <SelectField
          label="Route"
          name="destination"
          value={destination}
          onChange={(event) => url.set({ destination: event.target.value })}
          aria-controls={filterId}
        >
          <option value="">Every route</option>
          {(destinations.data ?? []).map((d) => (
            <option key={d.id} value={d.id}>
              {routeName(d)}
            </option>
          ))}
        </SelectField>
        {schedule ? (
          <p>
            Showing the runs of one schedule.{" "}
            <button type="button" className="link" onClick={() => url.set({ schedule: null })}>
              Show every check
            </button>
          </p>
        ) : null}
      </form>
      <div id={filterId}>
        {list.isPending ? <Loading what="Reading the checks" /> : null}
        <ErrorBox error={list.error} />
        {list.data && !items.length ? (
          <Empty>{destination || schedule ? "No check matches." : "No check yet. Run one above."}</Empty>
        ) : null}
        {items.length ? (
          <div className="table-wrap">
            <table aria-label="CLI checks, newest first">
              <thead>
                <tr>
                  <th scope="col">Result</th>
                  <th scope="col">Asked</th>
                  <th scope="col">Route</th>
                  <th scope="col">Country</th>
                  <th scope="col">Sent</th>
                  <th scope="col">Received</th>
                  <th scope="col" className="num">
                    Delay: post-dial / answer
                  </th>
                  <th scope="col" className="num">
                    MOS sent / received
                  </th>
                  <th scope="col" className="num">
                    Fee
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((check) => (
                  <tr
                    key={check.id}
                    data-testid="cli-check-row"
                    data-check-id={check.id}
                    data-result={resultName(check)}
                    aria-current={open === check.id ? "true" : undefined}
                  >
                    <td>
                      <Status value={check.status === "completed" ? check.result : check.status} />
                      {check.change ? <span className="muted"> {check.change}</span> : null}
                    </td>
                    <td className="when">{when(check.created_at)}</td>
                    <td>
                      {destinationLabel(destinations.data, check.destination_id)}
                      {check.schedule_id ? <span className="muted"> (scheduled)</span> : null}
                    </td>
                    <td>{countryName(check.country)}</td>
                    <td>{check.sent.caller_id}</td>
                    <td>{receivedText(check)}</td>
                    <td className="num">
                      {ms(check.post_dial_delay_ms)} / {ms(check.answer_delay_ms)}
                    </td>
                    <td className="num">
                      {mos(check.mos.sent)} / {mos(check.mos.received)}
                    </td>
                    <td className="num">{money(check.fee_usd)}</td>
                    <td>
                      <button
                        type="button"
                        onClick={() => onOpen(check.id)}
                        aria-label={`Show the check to ${countryName(check.country)} of ${when(check.created_at)}`}
                      >
                        Show
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <Pager total={list.data?.total ?? 0} limit={PAGE} offset={offset} onOffset={(next) => url.set({ offset: next || null })} />
        {items.some((check) => check.status === "placing") ? (
          <p className="muted">Read every two seconds while a check is placing.</p>
        ) : null}
      </div>
    </section>
  );
}
