// The account's support tickets (GET /support/tickets), newest first: status and kind filters and
// the page in the URL, a table linking to each ticket, and a new ticket (?new=1, &call_id=… to
// dispute that call's verdict).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, PageTitle, Pager, SelectField, Status } from "../../components/ui.tsx";
import { when, words } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { oneOf, PAGE_SIZE } from "../cases/case-values.tsx";
import { NewTicketForm } from "./new-ticket-form.tsx";
import { KIND_LABELS, TICKET_KINDS, TICKET_STATUSES } from "./ticket-values.ts";

export default function TicketsPage() {
  const url = useUrlState();
  const offset = Math.max(0, Number(url.get("offset")) || 0);
  const query = { status: oneOf(TICKET_STATUSES, url.get("status")), kind: oneOf(TICKET_KINDS, url.get("kind")), limit: PAGE_SIZE, offset };
  const tickets = useQuery({
    queryKey: ["tickets", query],
    queryFn: () => must(api.GET("/support/tickets", { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const creating = url.get("new") === "1";

  return (
    <>
      <PageTitle
        actions={
          creating ? null : (
            <button type="button" className="primary" onClick={() => url.set({ new: "1" }, { keepOffset: true })}>
              New ticket
            </button>
          )
        }
      >
        Support
      </PageTitle>
      {creating ? (
        <section className="card" aria-labelledby="new-ticket">
          <h2 id="new-ticket">New ticket</h2>
          <NewTicketForm callId={url.get("call_id")} onCancel={() => url.set({ new: "", call_id: "" }, { keepOffset: true })} />
        </section>
      ) : null}
      <form className="record-filters" aria-label="Filter tickets" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Status" name="status" value={url.get("status")} onChange={(e) => url.set({ status: e.target.value })}>
          <option value="">Any status</option>
          {TICKET_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
        <SelectField label="Kind" name="kind" value={url.get("kind")} onChange={(e) => url.set({ kind: e.target.value })}>
          <option value="">Any kind</option>
          {TICKET_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </SelectField>
      </form>
      {tickets.isPending ? <Loading what="Loading tickets" /> : null}
      <ErrorBox error={tickets.error} />
      {tickets.data && tickets.data.items.length === 0 ? (
        <Empty>{query.status || query.kind ? "No ticket matches these filters." : "No ticket yet: ask us anything with New ticket."}</Empty>
      ) : null}
      {tickets.data?.items.length ? (
        <div className="table-wrap records">
          <table>
            <thead>
              <tr>
                <th scope="col">No.</th>
                <th scope="col">Subject</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Replies
                </th>
                <th scope="col">Updated</th>
                <th scope="col">Call</th>
              </tr>
            </thead>
            <tbody>
              {tickets.data.items.map((t) => (
                <tr key={t.id}>
                  <th scope="row">#{t.ticket_no}</th>
                  <td className="title">
                    <Link href={`/support/${t.id}`}>{t.subject}</Link>
                  </td>
                  <td>{KIND_LABELS[t.kind] ?? words(t.kind)}</td>
                  <td>
                    <Status value={t.status} />
                  </td>
                  <td className="num">{t.message_count}</td>
                  <td className="when">{when(t.updated_at)}</td>
                  <td>
                    {t.call_id ? (
                      <Link href={`/calls/${t.call_id}`} aria-label={`Call ${t.call_id.slice(0, 8)} of ticket ${t.ticket_no}`}>
                        <code>{t.call_id.slice(0, 8)}</code>
                      </Link>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {tickets.data ? (
        <Pager total={tickets.data.total} limit={PAGE_SIZE} offset={offset} onOffset={(o) => url.set({ offset: o || null })} />
      ) : null}
    </>
  );
}
