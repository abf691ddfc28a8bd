// Monthly invoices: made by the Cron Trigger from the account's AccountLedger for the calendar
// month (UTC) just ended, numbered platform-wide without gaps, never changed once issued. Charges
// are grouped into lines (plan fees, call minutes, analysis fees, refunds, other charges), top-ups
// and credits are shown apart, and Canadian tax follows the billing address (tax.ts). Being
// prepaid, an invoice is settled from the balance at issue: the tax is debited then; when the
// balance cannot cover it the invoice stays due for that amount.
import { and, count, desc, eq, lt, notExists, sql } from "drizzle-orm";
import { v5 as uuidv5 } from "uuid";
import type { LedgerEntry } from "../../../durable-objects/account-ledger.ts";
import { invoices, type InvoiceLine, type InvoiceTax } from "../../../schema/billing.ts";
import { customers } from "../../../schema/identity.ts";
import { toUsd } from "../../lib/money.ts";
import { page, type PageParams } from "../../lib/pagination.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Services } from "../context.ts";
import type { Invoice } from "../../resources/invoices.ts";
import { ownedRow } from "../owned.ts";
import type { CustomerRow, Principal } from "../identity/principal.ts";
import { renderInvoicePdf } from "./invoice-pdf.ts";
import { postalAddressOut } from "../accounts/settings.ts";
import { isCharge, ledgerEntriesIn } from "./spend.ts";
import { roundToCent, taxOn, taxRuleFor } from "./tax.ts";

type InvoiceRow = typeof invoices.$inferSelect;

const TAX_ENTRY_NAMESPACE = "9d3c7e52-61b4-4a8e-b2f0-3c5e7a91d604";

/** The calendar month (UTC) before the one `now` is in: [start, end). */
export function previousMonth(now: Date): { start: string; end: string } {
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

const CHARGE_LINES: Record<string, { kind: string; description: string }> = {
  call: { kind: "calls", description: "Call minutes" },
  analysis: { kind: "analysis", description: "AI analysis fees" },
  refund: { kind: "refund", description: "Refunds" },
};
const CREDIT_LINES: Record<string, string> = { topup: "Top-ups", credit: "Credits" };

/** The month's charges as invoice lines, each rounded to the cent: plan fees one by one, the rest by kind. */
export function invoiceLines(entries: LedgerEntry[]): { lines: InvoiceLine[]; credits: InvoiceLine[] } {
  const oldestFirst = [...entries].reverse();
  const lines: InvoiceLine[] = [];
  const grouped = new Map<string, { line: InvoiceLine; micros: number; calls: Set<string> }>();
  for (const entry of oldestFirst.filter(isCharge)) {
    if (entry.type === "plan") {
      const amount = -entry.amount_micros;
      lines.push({
        kind: "plan_fee",
        description: entry.description ?? "Plan fee",
        quantity: 1,
        unit_micros: amount,
        amount_micros: amount,
      });
      continue;
    }
    const known = CHARGE_LINES[entry.type] ?? { kind: entry.type, description: `Other charges (${entry.type})` };
    let group = grouped.get(known.kind);
    if (!group) grouped.set(known.kind, (group = { line: { ...known, quantity: 0, amount_micros: 0 }, micros: 0, calls: new Set() }));
    group.micros -= entry.amount_micros;
    group.line.quantity! += 1;
    if (entry.call_id) group.calls.add(entry.call_id);
  }
  for (const { line, micros, calls } of grouped.values()) {
    lines.push({ ...line, quantity: line.kind === "calls" ? calls.size : line.quantity, amount_micros: roundToCent(micros) });
  }
  const credits = new Map<string, InvoiceLine>();
  for (const entry of oldestFirst.filter((e) => e.amount_micros > 0 && e.type !== "refund")) {
    const found = credits.get(entry.type) ?? {
      kind: entry.type,
      description: CREDIT_LINES[entry.type] ?? entry.type,
      quantity: 0,
      amount_micros: 0,
    };
    found.quantity! += 1;
    found.amount_micros += entry.amount_micros;
    credits.set(entry.type, found);
  }
  return { lines, credits: [...credits.values()].map((c) => ({ ...c, amount_micros: roundToCent(c.amount_micros) })) };
}

/**
 * The ticks of the first days of a month issue the month before; later ticks do nothing, so an
 * account in which no money moved is not looked at again every tick all month.
 */
const ISSUING_DAYS = 3;

/** Issues last month's invoice of every account that had money move then and has none yet. */
export async function issueInvoices(s: Services, now: Date): Promise<string[]> {
  if (now.getUTCDate() > ISSUING_DAYS) return [];
  const period = previousMonth(now);
  const due = await s.db
    .select()
    .from(customers)
    .where(
      and(
        lt(customers.createdAt, period.end),
        notExists(
          s.db
            .select({ id: invoices.id })
            .from(invoices)
            .where(and(eq(invoices.customerId, customers.id), eq(invoices.periodStart, period.start))),
        ),
      ),
    );
  const issued: string[] = [];
  for (const customer of due) {
    const id = await issueInvoice(s, customer, period);
    if (id) issued.push(id);
  }
  return issued;
}

async function issueInvoice(s: Services, customer: CustomerRow, period: { start: string; end: string }): Promise<string | null> {
  const entries = (await ledgerEntriesIn(s, customer.id, period.start, period.end)).filter((e) => e.type !== "tax");
  if (entries.length === 0) return null;
  const { lines, credits } = invoiceLines(entries);
  const subtotal = lines.reduce((sum, l) => sum + l.amount_micros, 0);
  const taxes: InvoiceTax[] = subtotal > 0 ? taxOn(subtotal, taxRuleFor(customer.billingAddress)) : [];
  const tax = taxes.reduce((sum, t) => sum + t.amount_micros, 0);
  let status = "paid";
  let amountDue = 0;
  if (tax > 0) {
    // Keyed by the account and month, so a retried tick never takes the tax twice.
    const settled = await s.ledger(customer.id).debit({
      entryId: uuidv5(`${customer.id}|${period.start}`, TAX_ENTRY_NAMESPACE),
      type: "tax",
      amountMicros: tax,
      description: `${taxes.map((t) => t.name).join(" + ")} on the invoice for ${period.start.slice(0, 7)}`,
      createdAt: nowIso(),
    });
    if (!settled.ok) [status, amountDue] = ["due", tax];
  }
  const id = newId();
  const address = customer.billingAddress;
  // The number is taken in the insert itself (D1 runs one statement at a time): no two invoices
  // share one, and a month already invoiced (ON CONFLICT) takes none, so the sequence has no gaps.
  const inserted = await s.db.run(sql`
    INSERT INTO invoices (id, customer_id, number, period_start, period_end, lines, subtotal_micros, tax_micros, taxes,
      total_micros, credits, currency, billing_address, tax_id, status, amount_due_micros, created_at)
    SELECT ${id}, ${customer.id}, COALESCE(MAX(number), 0) + 1, ${period.start}, ${period.end}, ${JSON.stringify(lines)},
      ${subtotal}, ${tax}, ${JSON.stringify(taxes)}, ${subtotal + tax}, ${JSON.stringify(credits)}, 'usd',
      ${address ? JSON.stringify(address) : null}, ${customer.taxId}, ${status}, ${amountDue}, ${nowIso()}
    FROM invoices WHERE true
    ON CONFLICT (customer_id, period_start) DO NOTHING`);
  return inserted.meta.changes === 1 ? id : null;
}

const lineOut = (l: InvoiceLine) => ({
  kind: l.kind,
  description: l.description,
  quantity: l.quantity ?? null,
  amount: toUsd(l.amount_micros),
});

export function invoiceOut(row: InvoiceRow): Invoice {
  return {
    id: row.id,
    number: row.number,
    period_start: row.periodStart,
    period_end: row.periodEnd,
    issued_at: row.createdAt,
    currency: row.currency,
    lines: row.lines.map(lineOut),
    subtotal: toUsd(row.subtotalMicros),
    taxes: row.taxes.map((t) => ({ name: t.name, rate_pct: t.rate_bps / 100, amount: toUsd(t.amount_micros) })),
    tax: toUsd(row.taxMicros),
    total: toUsd(row.totalMicros),
    credits: row.credits.map(lineOut),
    tax_exempt: taxRuleFor(row.billingAddress).exempt,
    tax_id: row.taxId,
    billing_address: postalAddressOut(row.billingAddress),
    status: row.status as "paid" | "due",
    amount_due: toUsd(row.amountDueMicros),
    pdf_url: `/api/customer/invoices/${row.id}/pdf`,
  };
}

/** Newest first. */
export async function listInvoices({ db }: Services, { customer }: Principal, params: PageParams) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(invoices)
      .where(eq(invoices.customerId, customer.id))
      .orderBy(desc(invoices.periodStart))
      .limit(params.limit)
      .offset(params.offset),
    db.select({ n: count() }).from(invoices).where(eq(invoices.customerId, customer.id)),
  ]);
  return page(rows.map(invoiceOut), total?.n ?? 0, params);
}

export async function getInvoice({ db }: Services, { customer }: Principal, invoiceId: string) {
  return invoiceOut(await ownedRow(db, invoices, customer.id, invoiceId, "Invoice"));
}

/** The invoice's PDF, drawn from the issued invoice. */
export async function invoicePdf(s: Services, principal: Principal, invoiceId: string) {
  const invoice = await getInvoice(s, principal, invoiceId);
  return { bytes: await renderInvoicePdf(invoice, principal.customer), filename: `invoice-${invoice.number}.pdf` };
}
