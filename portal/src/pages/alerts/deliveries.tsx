// The webhook's deliveries (GET /customer/webhook/deliveries), newest first, paged in the URL
// (?offset=…): each event with its status, attempts, the receiver's last answer and the next
// retry; every attempt of one on demand (GET …/deliveries/{id}); Redeliver sends the same event
// (same webhook-id, a fresh signature) once more, now.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useId, useState } from "react";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, Pager } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { ms, when } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { answerOf, keys, type WebhookDelivery } from "./shared.tsx";

const PAGE_SIZE = 20;

const EVENTS: Record<WebhookDelivery["kind"], string> = {
  "webhook.test": "Test event",
  "call.analyzed": "Call analysed",
  "call.route_alert": "Route alert",
  "automation.number_controlled": "Number controlled",
  "schedule.outcome_changed": "Schedule outcome changed",
  "screening.breach": "Screening breach",
};

const answer = (d: { status_code: number | null; error: string | null }) => answerOf(d.status_code, d.error);

export function Deliveries() {
  const url = useUrlState();
  const offset = Math.max(0, Number(url.get("offset")) || 0);
  const query = { limit: PAGE_SIZE, offset };
  const deliveries = useQuery({
    queryKey: [...keys.deliveries, query],
    queryFn: () => must(api.GET("/customer/webhook/deliveries", { params: { query } })),
    placeholderData: keepPreviousData,
    // While a delivery waits for its next attempt, the list follows it.
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === "pending") ? 5_000 : false),
  });
  return (
    <>
      <h3 id="deliveries-heading">Deliveries</h3>
      {deliveries.isPending ? <Loading what="Loading the deliveries" /> : null}
      <ErrorBox error={deliveries.error} />
      {deliveries.data && deliveries.data.items.length === 0 ? <Empty>No event sent yet.</Empty> : null}
      {deliveries.data?.items.length ? <DeliveryTable deliveries={deliveries.data.items} /> : null}
      {deliveries.data ? (
        <Pager
          total={deliveries.data.total}
          limit={PAGE_SIZE}
          offset={offset}
          onOffset={(o) => url.set({ offset: o || null }, { keepOffset: true })}
        />
      ) : null}
    </>
  );
}

function DeliveryTable({ deliveries }: { deliveries: WebhookDelivery[] }) {
  const queries = useQueryClient();
  const base = useId();
  const [open, setOpen] = useState<string | null>(null);
  const redeliver = useMutation({
    mutationFn: (id: string) =>
      must(api.POST("/customer/webhook/deliveries/{delivery_id}/redeliver", { params: { path: { delivery_id: id } } })),
    onSuccess: (delivery) => {
      featureUsed("alerts.webhook.redeliver");
      void queries.invalidateQueries({ queryKey: keys.deliveries });
      void queries.invalidateQueries({ queryKey: [...keys.deliveries, "one", delivery.id] });
    },
  });
  return (
    <>
      <div className="table-wrap">
        <table aria-labelledby="deliveries-heading">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Sent</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Attempts
              </th>
              <th scope="col">Last answer</th>
              <th scope="col" className="num">
                Took
              </th>
              <th scope="col">Delivered or next attempt</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => {
              const rowId = `${base}-${d.id}`;
              const expanded = open === d.id;
              return (
                <Fragment key={d.id}>
                  <tr data-delivery-id={d.id} data-kind={d.kind}>
                    <th scope="row" id={rowId}>
                      {EVENTS[d.kind] ?? d.kind}
                      <div className="muted mono">{d.event_id}</div>
                    </th>
                    <td className="when">{when(d.created_at)}</td>
                    <td>
                      <span className={`badge ${d.status}`}>
                        {d.status === "delivered" ? "Delivered" : d.status === "failed" ? "Failed" : "Pending"}
                      </span>
                    </td>
                    <td className="num">{d.attempts}</td>
                    <td>{answer(d)}</td>
                    <td className="num">{ms(d.latency_ms)}</td>
                    <td className="when">
                      {d.delivered_at ? when(d.delivered_at) : d.next_attempt_at ? `Next ${when(d.next_attempt_at)}` : "—"}
                    </td>
                    <td>
                      <div className="actions">
                        <button
                          type="button"
                          aria-expanded={expanded}
                          aria-controls={`${rowId}-attempts`}
                          aria-describedby={rowId}
                          onClick={() => setOpen(expanded ? null : d.id)}
                        >
                          Attempts
                        </button>
                        <button
                          type="button"
                          onClick={() => redeliver.mutate(d.id)}
                          disabled={redeliver.isPending}
                          aria-describedby={rowId}
                        >
                          {redeliver.isPending && redeliver.variables === d.id ? "Sending…" : "Redeliver"}
                        </button>
                      </div>
                    </td>
                  </tr>
                  {expanded ? (
                    <tr className="attempts-row">
                      <td colSpan={8} id={`${rowId}-attempts`}>
                        <Attempts id={d.id} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={redeliver.error} />
    </>
  );
}

function Attempts({ id }: { id: string }) {
  const one = useQuery({
    queryKey: [...keys.deliveries, "one", id],
    queryFn: () => must(api.GET("/customer/webhook/deliveries/{delivery_id}", { params: { path: { delivery_id: id } } })),
  });
  if (one.isPending) return <Loading what="Loading the attempts" />;
  if (one.isError) return <ErrorBox error={one.error} />;
  const attempts = one.data.attempt_log ?? [];
  if (!attempts.length) return <p className="muted">No attempt yet.</p>;
  return (
    <ol className="attempts">
      {attempts.map((a) => (
        <li key={a.attempt}>
          Attempt {a.attempt}, {when(a.created_at)}: {answer(a)}
          {a.latency_ms !== null ? `, ${ms(a.latency_ms)}` : ""}
          {a.url ? <span className="muted mono"> to {a.url}</span> : null}
        </li>
      ))}
    </ol>
  );
}
