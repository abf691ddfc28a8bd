// Live calls (/app/live): the account's calls up now (ringing or active) with the ports they use,
// read every two seconds; each opens its inspector. Elapsed and remaining time count on between
// two answers from the clock, so the figures move every second.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, PageTitle, Status } from "../../components/ui.tsx";
import { duration, when } from "../../lib/format.ts";
import { destinationOf, sinceSample, useNow } from "./shared.ts";

export default function LivePage() {
  const live = useQuery({
    queryKey: ["live-calls"],
    queryFn: () => must(api.GET("/customer/live-calls")),
    refetchInterval: 2_000,
    refetchIntervalInBackground: false,
    staleTime: 0,
  });
  const now = useNow(1_000);

  return (
    <div className="live-area">
      <PageTitle>Live calls</PageTitle>
      <p className="muted">The calls up now on your account, ringing or answered. This page reads them every two seconds.</p>
      {live.isPending ? <Loading what="Reading the calls up now" /> : null}
      {live.isError && !live.data ? <ErrorBox error={live.error} /> : null}
      {live.data ? (
        <>
          <section className="stats" aria-label="Ports and calls">
            <div className="stat">
              <div className="label">Ports in use</div>
              <div className="value" data-testid="ports-in-use">
                {live.data.ports_in_use} of {live.data.ports}
              </div>
            </div>
            <div className="stat">
              <div className="label">Calls up</div>
              <div className="value" data-testid="active-count">
                {live.data.active_count}
              </div>
            </div>
            <div className="stat">
              <div className="label">Last read</div>
              <div className="value small">{new Date(live.dataUpdatedAt).toLocaleTimeString()}</div>
            </div>
          </section>
          {live.isError ? <ErrorBox error={live.error} /> : null}
          {live.data.items.length ? (
            <LiveTable items={live.data.items} gone={sinceSample(now, live.dataUpdatedAt)} />
          ) : (
            <Empty>No call is up right now. A call shows here from the moment it is admitted.</Empty>
          )}
        </>
      ) : null}
    </div>
  );
}

function LiveTable({ items, gone }: { items: Schemas["LiveCall"][]; gone: number }) {
  return (
    <div className="table-wrap">
      <table aria-label="Calls up now, newest first">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Caller</th>
            <th scope="col">Dialed</th>
            <th scope="col">Destination</th>
            <th scope="col">Sub-customer</th>
            <th scope="col">Started</th>
            <th scope="col">Answered</th>
            <th scope="col" className="num">
              Elapsed
            </th>
            <th scope="col" className="num">
              Remaining
            </th>
            <th scope="col">Inspector</th>
          </tr>
        </thead>
        <tbody>
          {items.map((call) => (
            <tr key={call.id} data-testid="live-row" data-call-id={call.id} data-status={call.status}>
              <td>
                <Status value={call.status} />
              </td>
              <td>{call.ani || "—"}</td>
              <td>{call.dialed || "—"}</td>
              <td>{destinationOf(call)}</td>
              <td>{call.sub_customer || "—"}</td>
              <td className="when">{when(call.started_at)}</td>
              <td className="when">{when(call.answered_at)}</td>
              <td className="num">{duration(call.elapsed_sec + gone)}</td>
              <td className="num">{call.remaining_sec === null ? "no cap" : duration(Math.max(0, call.remaining_sec - gone))}</td>
              <td>
                <Link
                  href={`/live/${call.id}`}
                  aria-label={`Inspect the call from ${call.ani || "an unknown caller"} to ${call.dialed || "an unknown number"}`}
                >
                  Inspect
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
