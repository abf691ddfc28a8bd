// Monthly invoices (GET /customer/invoices), one opened in the URL (?invoice=<id>, GET
// /customer/invoices/{id}) with its lines, taxes and credits, and each one's PDF
// (GET /customer/invoices/{id}/pdf, our extension).
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { api, download, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Loading, Pager } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { count, money, when } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";

type Invoice = Schemas["Invoice"];

const PAGE_SIZE = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const month = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
const period = (invoice: Invoice) => month.format(new Date(invoice.period_start));

function PdfButton({ invoice }: { invoice: Invoice }) {
  const pdf = useMutation({
    mutationFn: () => download(`/customer/invoices/${invoice.id}/pdf`, `invoice-${invoice.number}.pdf`),
    onSuccess: () => featureUsed("billing.invoice_pdf"),
  });
  return (
    <>
      <button type="button" onClick={() => pdf.mutate()} disabled={pdf.isPending} aria-label={`PDF of invoice ${invoice.number}`}>
        PDF
      </button>
      <ErrorBox error={pdf.error} />
    </>
  );
}

export function Invoices() {
  const url = useUrlState();
  const offset = Math.max(0, Math.floor(Number(url.get("invoices_offset"))) || 0);
  const open = UUID.test(url.get("invoice")) ? url.get("invoice") : "";
  const invoices = useQuery({
    queryKey: ["billing", "invoices", offset],
    queryFn: () => must(api.GET("/customer/invoices", { params: { query: { limit: PAGE_SIZE, offset } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="card" aria-labelledby="invoices-heading">
      <h2 id="invoices-heading">Invoices</h2>
      <p className="muted">
        One for each calendar month in which money moved, issued in the first three days of the next month. Top-ups are shown apart, not in
        the total.
      </p>
      {invoices.isPending ? <Loading what="Loading the invoices" /> : null}
      <ErrorBox error={invoices.error} />
      {invoices.data && invoices.data.items.length === 0 ? <Empty>No invoice yet: the first is issued early next month.</Empty> : null}
      {invoices.data?.items.length ? (
        <div className="table-wrap records">
          <table>
            <caption className="visually-hidden">Invoices, newest first</caption>
            <thead>
              <tr>
                <th scope="col">No.</th>
                <th scope="col">Month</th>
                <th scope="col">Issued</th>
                <th scope="col" className="num">
                  Total
                </th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invoices.data.items.map((invoice) => (
                <tr key={invoice.id}>
                  <th scope="row">{invoice.number}</th>
                  <td>{period(invoice)}</td>
                  <td className="when">{when(invoice.issued_at)}</td>
                  <td className="num">{money(invoice.total)}</td>
                  <td>
                    <span className={`badge invoice-${invoice.status}`}>{invoice.status}</span>
                  </td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        aria-pressed={open === invoice.id}
                        aria-label={`Details of invoice ${invoice.number}`}
                        onClick={() => url.set({ invoice: open === invoice.id ? "" : invoice.id }, { keepOffset: true })}
                      >
                        Details
                      </button>
                      <PdfButton invoice={invoice} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {invoices.data ? (
        <Pager
          total={invoices.data.total}
          limit={PAGE_SIZE}
          offset={offset}
          onOffset={(o) => url.set({ invoices_offset: o || null }, { keepOffset: true })}
        />
      ) : null}
      {open ? <InvoiceDetail id={open} onClose={() => url.set({ invoice: "" }, { keepOffset: true })} /> : null}
    </section>
  );
}

function InvoiceDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const invoice = useQuery({
    queryKey: ["billing", "invoice", id],
    queryFn: () => must(api.GET("/customer/invoices/{invoice_id}", { params: { path: { invoice_id: id } } })),
  });
  if (invoice.isPending) return <Loading what="Loading the invoice" />;
  if (invoice.isError) return <ErrorBox error={invoice.error} />;
  const inv = invoice.data;
  const address = [
    inv.billing_address.name,
    inv.billing_address.line1,
    inv.billing_address.line2,
    [inv.billing_address.city, inv.billing_address.province, inv.billing_address.postal_code].filter(Boolean).join(" "),
    inv.billing_address.country,
  ].filter(Boolean);
  return (
    <article className="invoice" aria-labelledby="invoice-heading">
      <h3 id="invoice-heading">
        Invoice {inv.number}: {period(inv)}
      </h3>
      <dl className="facts">
        <dt>Issued</dt>
        <dd>{when(inv.issued_at)}</dd>
        <dt>Status</dt>
        <dd>{inv.status === "paid" ? "Paid from the prepaid balance" : `Due: ${money(inv.amount_due)}`}</dd>
        <dt>Billed to</dt>
        <dd>{address.length ? address.join(", ") : <span className="muted">No billing address</span>}</dd>
        <dt>Tax ID</dt>
        <dd>{inv.tax_id ?? "—"}</dd>
      </dl>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Lines of invoice {inv.number}</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col" className="num">
                Quantity
              </th>
              <th scope="col" className="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {inv.lines.map((line, n) => (
              <tr key={n}>
                <th scope="row">{line.description}</th>
                <td className="num">{count(line.quantity)}</td>
                <td className="num">{money(line.amount)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Subtotal</th>
              <td />
              <td className="num">{money(inv.subtotal)}</td>
            </tr>
            {inv.tax_exempt ? (
              <tr>
                <th scope="row">Tax (exempt: not billed in Canada)</th>
                <td />
                <td className="num">{money(0)}</td>
              </tr>
            ) : (
              inv.taxes.map((tax) => (
                <tr key={tax.name}>
                  <th scope="row">
                    {tax.name} {tax.rate_pct}%
                  </th>
                  <td />
                  <td className="num">{money(tax.amount)}</td>
                </tr>
              ))
            )}
            <tr className="total">
              <th scope="row">Total</th>
              <td />
              <td className="num">{money(inv.total)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      {inv.credits.length ? (
        <>
          <h4>Credits this month (not in the total)</h4>
          <ul className="plain">
            {inv.credits.map((credit, n) => (
              <li key={n}>
                {credit.description}: {money(credit.amount)}
                {credit.quantity ? <span className="muted"> ({count(credit.quantity)})</span> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <div className="actions">
        <PdfButton invoice={inv} />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </article>
  );
}
