// The calls list (GET /calls): every filter the API takes, the entities and keywords of the last
// days as chips, sortable columns, pages; all of it in the URL so a link shows the same list.
// Each row opens the call (/app/calls/{id}).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, PageTitle, Pager, Probability, Recommendation, SelectField, Status } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { duration, when, words } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { FilterForm } from "./filter-form.tsx";
import { callQuery, DEFAULT_LIMIT, DEFAULT_SORT, hasFilters, LIMITS, limitOf, offsetOf } from "./filters.ts";
import { TrendChips } from "./trend-chips.tsx";

type SortKey = "started_at" | "probability" | "duration_sec";

export default function CallsPage() {
  const url = useUrlState();
  const query = callQuery(url);
  const limit = limitOf(url);
  const offset = offsetOf(url);
  const sort = url.get("sort") || DEFAULT_SORT;
  const filtered = hasFilters(url);
  const calls = useQuery({
    queryKey: ["calls", query],
    queryFn: () => must(api.GET("/calls", { params: { query } })),
    placeholderData: keepPreviousData,
  });

  const onSort = (next: string) => {
    url.set({ sort: next === DEFAULT_SORT ? "" : next });
    featureUsed("calls.sort");
  };

  return (
    <>
      <PageTitle>Calls</PageTitle>
      <section className="card" aria-labelledby="calls-filters-h">
        <h2 id="calls-filters-h">Filters</h2>
        <TrendChips url={url} />
        <FilterForm url={url} error={calls.error} />
      </section>

      <section aria-labelledby="calls-results-h">
        <div className="page-title calls-results-title">
          <h2 id="calls-results-h">
            {calls.data ? `${calls.data.total.toLocaleString()} ${calls.data.total === 1 ? "call" : "calls"}` : "Calls"}
            {filtered ? <span className="muted"> matching the filters</span> : null}
          </h2>
          <div className="calls-limit">
            <SelectField
              label="Per page"
              name="limit"
              value={String(limit)}
              onChange={(e) => url.set({ limit: Number(e.target.value) === DEFAULT_LIMIT ? "" : e.target.value })}
            >
              {(LIMITS as readonly number[]).includes(limit) ? null : <option value={limit}>{limit}</option>}
              {LIMITS.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </SelectField>
          </div>
        </div>
        {calls.isPending ? (
          <Loading what="Loading the calls" />
        ) : calls.isError ? (
          <ErrorBox error={calls.error} />
        ) : calls.data.items.length === 0 ? (
          <Empty>
            {filtered
              ? "No calls match these filters. Change or clear the filters to see more."
              : offset > 0
                ? "No calls on this page."
                : "No calls yet: calls to your destinations show here as they happen."}
          </Empty>
        ) : (
          <>
            <div className="table-wrap" aria-busy={calls.isPlaceholderData}>
              <table className="calls-table">
                <caption className="visually-hidden">Calls, sorted by {sortLabel(sort)}; the time of each opens the call</caption>
                <thead>
                  <tr>
                    <SortHeader label="Started" column="started_at" sort={sort} onSort={onSort} />
                    <th scope="col">Caller</th>
                    <th scope="col">Dialed</th>
                    <th scope="col">Destination</th>
                    <th scope="col">Status</th>
                    <SortHeader label="Duration" column="duration_sec" sort={sort} onSort={onSort} num />
                    <SortHeader label="Probability" column="probability" sort={sort} onSort={onSort} num />
                    <th scope="col">Recommendation</th>
                    <th scope="col">Category</th>
                  </tr>
                </thead>
                <tbody>
                  {calls.data.items.map((call) => (
                    <CallRow key={call.id} call={call} />
                  ))}
                </tbody>
              </table>
            </div>
            <Pager total={calls.data.total} limit={limit} offset={offset} onOffset={(next) => url.set({ offset: next || "" })} />
          </>
        )}
      </section>
    </>
  );
}

function sortLabel(sort: string): string {
  const column = sort.replace(/^-/, "");
  const name = column === "probability" ? "probability" : column === "duration_sec" ? "duration" : "start time";
  return `${name}, ${sort.startsWith("-") ? "highest or newest first" : "lowest or oldest first"}`;
}

function SortHeader({
  label,
  column,
  sort,
  onSort,
  num = false,
}: {
  label: string;
  column: SortKey;
  sort: string;
  onSort: (sort: string) => void;
  num?: boolean;
}) {
  const direction = sort === column ? "ascending" : sort === `-${column}` ? "descending" : "none";
  // A new column sorts highest (newest) first; pressing it again turns the order round.
  const next = direction === "descending" ? column : `-${column}`;
  return (
    <th scope="col" aria-sort={direction} className={num ? "num" : undefined}>
      <button type="button" onClick={() => onSort(next)}>
        {label}
        <span aria-hidden="true" className="calls-sort-mark">
          {direction === "ascending" ? " ▲" : direction === "descending" ? " ▼" : " ↕"}
        </span>
      </button>
    </th>
  );
}

function CallRow({ call }: { call: Schemas["Call"] }) {
  const verdict = call.analysis;
  return (
    <tr>
      <td>
        <Link href={`/calls/${call.id}`}>{when(call.started_at)}</Link>
      </td>
      <td>{call.ani ?? "—"}</td>
      <td>{call.dialed ?? "—"}</td>
      <td>{call.routed_destination_label || call.dest_host}</td>
      <td>
        <Status value={call.status} />
      </td>
      <td className="num">{duration(call.duration_sec)}</td>
      <td className="num">
        <Probability value={verdict?.probability} />
      </td>
      <td>
        <Recommendation value={verdict?.recommendation} />
      </td>
      <td>{verdict ? words(verdict.category) : <span className="muted">{words(call.analysis_status)}</span>}</td>
    </tr>
  );
}
