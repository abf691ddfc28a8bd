// An invoice as a one-page PDF (pdf-lib, its standard fonts), drawn from the issued invoice alone,
// so the same invoice always prints the same figures.
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import type { Invoice } from "../../resources/invoices.ts";

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.42, 0.42, 0.46);

const usd = (n: number) => `${n < 0 ? "-" : ""}US$${Math.abs(n).toFixed(2)}`;
/** WinAnsi only (the standard fonts): anything else prints as "?". */
const latin1 = (text: string) => text.replace(/[^\x20-\x7e\xa1-\xff]/g, "?");

export async function renderInvoicePdf(invoice: Invoice, account: { company: string | null; email: string }): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Invoice ${invoice.number}`);
  const page = doc.addPage(A4);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let y = A4[1] - MARGIN;
  const text = (value: string, x: number, opts: { bold?: boolean; size?: number; muted?: boolean } = {}) =>
    page.drawText(latin1(value), { x, y, size: opts.size ?? 10, font: opts.bold ? bold : regular, color: opts.muted ? MUTED : INK });
  const right = (value: string, opts: { bold?: boolean } = {}) => {
    const font = opts.bold ? bold : regular;
    text(value, A4[0] - MARGIN - font.widthOfTextAtSize(latin1(value), 10), opts);
  };
  const next = (dy = 16) => (y -= dy);

  text(`Invoice ${invoice.number}`, MARGIN, { bold: true, size: 18 });
  next(26);
  text(`Period: ${invoice.period_start.slice(0, 10)} to ${invoice.period_end.slice(0, 10)} (exclusive), UTC`, MARGIN);
  next();
  text(`Issued: ${invoice.issued_at.slice(0, 10)}`, MARGIN);
  next(24);
  text("Bill to", MARGIN, { bold: true });
  next();
  const a = invoice.billing_address;
  const billTo = [
    a.name ?? account.company ?? account.email,
    a.line1,
    a.line2,
    [a.city, a.province, a.postal_code].filter(Boolean).join(" "),
    a.country,
  ];
  for (const line of billTo.filter((l): l is string => !!l)) {
    text(line, MARGIN);
    next(14);
  }
  if (invoice.tax_id) {
    text(`Tax ID: ${invoice.tax_id}`, MARGIN);
    next(14);
  }
  next(14);
  text("Description", MARGIN, { bold: true });
  right("Amount", { bold: true });
  next();
  for (const line of invoice.lines) {
    text(line.quantity !== null && line.kind !== "plan_fee" ? `${line.description} (${line.quantity})` : line.description, MARGIN);
    right(usd(line.amount));
    next();
  }
  next(6);
  text("Subtotal", MARGIN);
  right(usd(invoice.subtotal));
  next();
  if (invoice.tax_exempt) {
    text("Tax: exempt (billing address outside Canada)", MARGIN);
    right(usd(0));
    next();
  }
  for (const tax of invoice.taxes) {
    text(`${tax.name} ${tax.rate_pct}%`, MARGIN);
    right(usd(tax.amount));
    next();
  }
  text("Total", MARGIN, { bold: true });
  right(usd(invoice.total), { bold: true });
  next();
  text(invoice.status === "paid" ? "Settled from the prepaid balance" : `Amount due: ${usd(invoice.amount_due)}`, MARGIN, { muted: true });
  next(28);
  if (invoice.credits.length > 0) {
    text("Payments and credits received (not part of the total)", MARGIN, { bold: true });
    next();
    for (const credit of invoice.credits) {
      text(`${credit.description} (${credit.quantity ?? 1})`, MARGIN);
      right(usd(credit.amount));
      next();
    }
  }
  return doc.save();
}
