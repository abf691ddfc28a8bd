// One support ticket (GET /support/tickets/{id}): its facts, the call it is about, the conversation
// with a new message, and close or reopen ("answered" is set only by support's reply).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "wouter";
import { api, must } from "../../api/client.ts";
import { ErrorBox, Loading, PageTitle, Status } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when, words } from "../../lib/format.ts";
import { isMissing } from "../cases/case-values.tsx";
import { LinkedCall } from "../cases/linked-call.tsx";
import { TicketThread } from "./ticket-thread.tsx";
import { KIND_LABELS } from "./ticket-values.ts";

export default function TicketPage() {
  const { id = "" } = useParams<{ id: string }>();
  const queries = useQueryClient();
  const found = useQuery({
    queryKey: ["ticket", id],
    queryFn: () => must(api.GET("/support/tickets/{ticket_id}", { params: { path: { ticket_id: id } } })),
    retry: (failures, error) => !isMissing(error) && failures < 2,
  });
  const setStatus = useMutation({
    mutationFn: (status: "open" | "closed") =>
      must(api.PATCH("/support/tickets/{ticket_id}", { params: { path: { ticket_id: id } }, body: { status } })),
    onSuccess: async (_ticket, status) => {
      featureUsed(status === "closed" ? "ticket.close" : "ticket.reopen");
      await queries.invalidateQueries({ queryKey: ["ticket", id] });
      void queries.invalidateQueries({ queryKey: ["tickets"] });
    },
  });

  if (found.isPending) return <Loading what="Loading the ticket" />;
  if (found.isError) {
    if (!isMissing(found.error)) return <ErrorBox error={found.error} />;
    return (
      <>
        <PageTitle>Ticket not found</PageTitle>
        <p>
          This account has no support ticket at this address. <Link href="/support">All tickets</Link>
        </p>
      </>
    );
  }
  const ticket = found.data;
  const closed = ticket.status === "closed";
  return (
    <>
      <p className="crumbs">
        <Link href="/support">Support</Link>
      </p>
      <PageTitle
        actions={
          <button type="button" disabled={setStatus.isPending} onClick={() => setStatus.mutate(closed ? "open" : "closed")}>
            {closed ? "Reopen the ticket" : "Close the ticket"}
          </button>
        }
      >
        Ticket #{ticket.ticket_no}: {ticket.subject}
      </PageTitle>
      <ErrorBox error={setStatus.error} />
      <div className="cols">
        <section className="card" aria-labelledby="ticket-facts">
          <h2 id="ticket-facts">The ticket</h2>
          <dl className="facts">
            <dt>Kind</dt>
            <dd>{KIND_LABELS[ticket.kind] ?? words(ticket.kind)}</dd>
            <dt>Status</dt>
            <dd>
              <Status value={ticket.status} />
            </dd>
            <dt>Opened by</dt>
            <dd>{ticket.created_by ?? "—"}</dd>
            <dt>Opened</dt>
            <dd>{when(ticket.created_at)}</dd>
            <dt>Updated</dt>
            <dd>{when(ticket.updated_at)}</dd>
            {ticket.closed_at ? (
              <>
                <dt>{closed ? "Closed" : "Last closed"}</dt>
                <dd>{when(ticket.closed_at)}</dd>
              </>
            ) : null}
          </dl>
        </section>
        <LinkedCall callId={ticket.call_id} call={ticket.call} headingId="ticket-call" />
      </div>
      <TicketThread ticket={ticket} />
    </>
  );
}
