// The ledger, newest first (GET /customer/ledger), its page in the URL (?offset=).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, Pager } from "../../components/ui.tsx";
import { money, when, words } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { LEDGER_KEY } from "./keys.ts";

const PAGE_SIZE = 25;

/** How each entry type reads (the ledger's own words: credit, call, analysis, plan, topup, refund). */
const TYPES: Record<string, string> = {
  topup: "Top-up",
  plan: "Plan fee",
  plan_fee: "Plan fee",
  call: "Call",
  analysis: "Analysis",
  credit: "Credit",
  refund: "Refund",
};

export function Ledger() {
  const url = useUrlState();
  const offset = Math.max(0, Math.floor(Number(url.get("offset"))) || 0);
  const ledger = useQuery({
    queryKey: [...LEDGER_KEY, offset],
    queryFn: () => must(api.GET("/customer/ledger", { params: { query: { limit: PAGE_SIZE, offset } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="card" aria-labelledby="ledger-heading">
      <h2 id="ledger-heading">Ledger</h2>
      {ledger.isPending ? <Loading what="Loading the ledger" /> : null}
      <ErrorBox error={ledger.error} />
      {ledger.data && ledger.data.items.length === 0 ? <Empty>No entry on this page.</Empty> : null}
      {ledger.data?.items.length ? (
        <div className="table-wrap records ledger">
          <table>
            <caption className="visually-hidden">Ledger entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Type</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col" className="num">
                  Balance after
                </th>
                <th scope="col">Description</th>
                <th scope="col">Call</th>
                <th scope="col" className="num">
                  Waived
                </th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.items.map((entry) => (
                <tr key={entry.id} data-type={entry.type}>
                  <th scope="row" className="when">
                    {when(entry.created_at)}
                  </th>
                  <td>{TYPES[entry.type] ?? words(entry.type)}</td>
                  <td className={entry.amount < 0 ? "num charge" : "num credit"}>{money(entry.amount)}</td>
                  <td className="num">{money(entry.balance_after)}</td>
                  <td>{entry.description ?? <span className="muted">—</span>}</td>
                  <td>
                    {entry.call_id ? (
                      <Link href={`/calls/${entry.call_id}`}>Call {entry.call_id.slice(0, 8)}</Link>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td className="num">{entry.waived_amount ? money(entry.waived_amount) : <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {ledger.data ? (
        <Pager total={ledger.data.total} limit={PAGE_SIZE} offset={offset} onOffset={(o) => url.set({ offset: o || null })} />
      ) : null}
    </section>
  );
}
