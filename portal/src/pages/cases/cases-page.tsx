// The account's cases (GET /cases): filters and page in the URL, a table linking to each case, and
// the form of a new case (?new=1, with &call_id=… for a case about that call).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, PageTitle, Pager, Status } from "../../components/ui.tsx";
import { when } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { CaseFilters } from "./case-filters.tsx";
import { CASE_STATUSES, isUuid, oneOf, PAGE_SIZE, SEVERITIES, Severity } from "./case-values.tsx";
import { NewCase } from "./new-case-form.tsx";

export default function CasesPage() {
  const url = useUrlState();
  const offset = Math.max(0, Number(url.get("offset")) || 0);
  const query = {
    status: oneOf(CASE_STATUSES, url.get("status")),
    severity: oneOf(SEVERITIES, url.get("severity")),
    assigned_to: isUuid(url.get("assigned_to")) ? url.get("assigned_to") : undefined,
    call_id: isUuid(url.get("call_id")) ? url.get("call_id") : undefined,
    limit: PAGE_SIZE,
    offset,
  };
  const cases = useQuery({
    queryKey: ["cases", query],
    queryFn: () => must(api.GET("/cases", { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const creating = url.get("new") === "1";
  const filtered = !!(query.status || query.severity || query.assigned_to || query.call_id);

  return (
    <>
      <PageTitle
        actions={
          creating ? null : (
            <button type="button" className="primary" onClick={() => url.set({ new: "1" }, { keepOffset: true })}>
              New case
            </button>
          )
        }
      >
        Cases
      </PageTitle>
      {creating ? (
        <section className="card" aria-labelledby="new-case">
          <h2 id="new-case">New case</h2>
          <NewCase callId={url.get("call_id")} onCancel={() => url.set({ new: "" }, { keepOffset: true })} />
        </section>
      ) : null}
      <CaseFilters />
      {cases.isPending ? <Loading what="Loading cases" /> : null}
      <ErrorBox error={cases.error} />
      {cases.data && cases.data.items.length === 0 ? (
        <Empty>{filtered ? "No case matches these filters." : "No case yet: open one from a call, or with New case."}</Empty>
      ) : null}
      {cases.data?.items.length ? (
        <div className="table-wrap records">
          <table>
            <thead>
              <tr>
                <th scope="col">No.</th>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Severity</th>
                <th scope="col">Assigned to</th>
                <th scope="col" className="num">
                  Comments
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {cases.data.items.map((c) => (
                <tr key={c.id}>
                  <th scope="row">#{c.case_no}</th>
                  <td className="title">
                    <Link href={`/cases/${c.id}`}>{c.title}</Link>
                  </td>
                  <td>
                    <Status value={c.status} />
                  </td>
                  <td>
                    <Severity value={c.severity} />
                  </td>
                  <td>{c.assigned_to_label ?? <span className="muted">Unassigned</span>}</td>
                  <td className="num">{c.comment_count}</td>
                  <td className="when">{when(c.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {cases.data ? (
        <Pager total={cases.data.total} limit={PAGE_SIZE} offset={offset} onOffset={(o) => url.set({ offset: o || null })} />
      ) : null}
    </>
  );
}
