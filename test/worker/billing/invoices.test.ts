// Monthly invoices issued by the Cron Trigger from the ledger: lines to the cent, Canadian tax by
// the billing address (Ontario, Quebec, Alberta, Nova Scotia, an unset province, the US), numbers
// without gaps, nothing issued twice, the tax settled from the balance, and the PDF.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { JOBS } from "../../../worker/cron/index.ts";
import { issueInvoices } from "../../../worker/services/billing/invoices.ts";
import { pdfText } from "../../shared/pdf-text.ts";
import { exports } from "cloudflare:workers";
import { bodyOf, expectStatus, ORIGIN } from "../fixtures/client.ts";
import { createAccount, testServices, type Session } from "../fixtures/factory.ts";

/** The first instant of next month (UTC) plus an hour: the tick that invoices this month. */
const nextMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1));
};
const at = () => new Date().toISOString();

/**
 * This month: welcome credit 5 and a top-up of 100; the Starter fee 49.00; three analysis fees of
 * 0.02 (one refunded); one call charged 1.234567. Charges to the cent: 49.00 + 0.06 + 1.23 - 0.02 = 50.27.
 */
async function monthOfUse(address: Record<string, unknown> | null, taxId: string | null = null): Promise<Session> {
  const owner = await createAccount();
  if (address) expect((await owner.client.put("/api/customer/billing-address", address)).status).toBe(200);
  if (taxId) await owner.client.put("/api/customer/tax-id", { tax_id: taxId });
  const ledger = testServices().ledger(owner.account.id);
  await ledger.credit({
    entryId: crypto.randomUUID(),
    type: "topup",
    amountMicros: 100_000_000,
    description: "Card payment",
    createdAt: at(),
  });
  expect((await owner.client.post("/api/customer/plan", { plan_code: "starter" })).status).toBe(200);
  const fees = [];
  for (let i = 0; i < 3; i++) {
    const fee = await ledger.debit({
      entryId: crypto.randomUUID(),
      type: "analysis",
      amountMicros: 20_000,
      callId: crypto.randomUUID(),
      createdAt: at(),
    });
    expect(fee.ok).toBe(true);
    fees.push(fee);
  }
  await ledger.refund({
    entryId: crypto.randomUUID(),
    ofEntryId: (fees[0] as { entry: { id: string } }).entry.id,
    type: "refund",
    createdAt: at(),
  });
  await ledger.debit({ entryId: crypto.randomUUID(), type: "call", amountMicros: 1_234_567, callId: crypto.randomUUID(), createdAt: at() });
  return owner;
}

async function invoiceOf(owner: Session) {
  const list = await owner.client.get("/api/customer/invoices");
  expectStatus(list, 200);
  expect(list.body.total).toBe(1);
  const [invoice] = list.body.items;
  if (!invoice) throw new Error("no invoice listed");
  return invoice;
}

const balanceOf = async (owner: Session) => bodyOf(await owner.client.get("/api/customer/balance"), 200).balance;

describe("monthly invoices", () => {
  it.each([
    ["Ontario", { country: "CA", province: "ON" }, [{ name: "HST", rate_pct: 13, amount: 6.54 }], 56.81],
    ["Nova Scotia", { country: "CA", province: "NS" }, [{ name: "HST", rate_pct: 15, amount: 7.54 }], 57.81],
    ["Quebec", { country: "CA", province: "QC" }, [{ name: "GST", rate_pct: 5, amount: 2.51 }], 52.78],
    ["Alberta", { country: "CA", province: "AB" }, [{ name: "GST", rate_pct: 5, amount: 2.51 }], 52.78],
    ["Canada, province unset", { country: "CA" }, [{ name: "GST", rate_pct: 5, amount: 2.51 }], 52.78],
    ["the United States", { country: "US", province: "TX" }, [], 50.27],
    ["no billing address", null, [], 50.27],
  ])("bills %s to the cent", async (_, address, taxes, total) => {
    const owner = await monthOfUse(address, "123456789RT0001");
    const before = await balanceOf(owner);
    await issueInvoices(testServices(), nextMonth());
    const invoice = await invoiceOf(owner);
    const month = new Date();
    expect(invoice).toMatchObject({
      period_start: new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1)).toISOString(),
      period_end: new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1)).toISOString(),
      currency: "usd",
      lines: [
        { kind: "plan_fee", description: "Starter plan, first month", quantity: 1, amount: 49 },
        { kind: "analysis", description: "AI analysis fees", quantity: 3, amount: 0.06 },
        { kind: "refund", description: "Refunds", quantity: 1, amount: -0.02 },
        { kind: "calls", description: "Call minutes", quantity: 1, amount: 1.23 },
      ],
      subtotal: 50.27,
      taxes,
      tax: taxes.reduce((sum, t) => sum + t.amount, 0),
      total,
      credits: [
        { kind: "credit", description: "Credits", quantity: 1, amount: 5 },
        { kind: "topup", description: "Top-ups", quantity: 1, amount: 100 },
      ],
      tax_exempt: taxes.length === 0,
      tax_id: "123456789RT0001",
      status: "paid",
      amount_due: 0,
    });
    // The tax is settled from the prepaid balance, once.
    const tax = invoice.tax;
    expect(await balanceOf(owner)).toBeCloseTo(before - tax, 6);
    const entries = bodyOf(await owner.client.get("/api/customer/ledger?limit=500"), 200).items;
    expect(entries.filter((e) => e.type === "tax").map((e) => e.amount)).toEqual(tax > 0 ? [-tax] : []);
    expect((await owner.client.get(`/api/customer/invoices/${invoice.id}`)).body).toEqual(invoice);
  });

  it("issues each month once, numbered platform-wide without gaps, and never changes an issued invoice", async () => {
    const owners = await Promise.all([monthOfUse({ country: "CA", province: "ON" }), monthOfUse(null), monthOfUse(null)]);
    const tick = JOBS.find((j) => j.name === "monthly invoices")!;
    await Promise.all([tick.run(testServices(), env as never, nextMonth()), tick.run(testServices(), env as never, nextMonth())]);
    await tick.run(testServices(), env as never, nextMonth());
    const numbers = await env.DB.prepare("SELECT number FROM invoices ORDER BY number").all<{ number: number }>();
    expect(numbers.results.map((r) => r.number)).toEqual(numbers.results.map((_, i) => i + 1));
    const first = await invoiceOf(owners[0]!);
    for (const owner of owners) expect(bodyOf(await owner.client.get("/api/customer/invoices"), 200).total).toBe(1);
    const taxEntries = bodyOf(await owners[0]!.client.get("/api/customer/ledger?limit=500"), 200).items.filter((e) => e.type === "tax");
    expect(taxEntries).toHaveLength(1);
    // A later change of address leaves the issued invoice as it was.
    await owners[0]!.client.put("/api/customer/billing-address", { country: "US" });
    expect(await invoiceOf(owners[0]!)).toEqual(first);
  });

  it("is issued in the first three days of the month only", async () => {
    const owner = await monthOfUse(null);
    const late = nextMonth();
    late.setUTCDate(4);
    expect(await issueInvoices(testServices(), late)).toEqual([]);
    expect(bodyOf(await owner.client.get("/api/customer/invoices"), 200).total).toBe(0);
    late.setUTCDate(3);
    await issueInvoices(testServices(), late);
    expect(bodyOf(await owner.client.get("/api/customer/invoices"), 200).total).toBe(1);
  });

  it("stays due for the tax the balance cannot cover", async () => {
    const owner = await monthOfUse({ country: "CA", province: "ON" });
    const ledger = testServices().ledger(owner.account.id);
    const left = Math.round((await balanceOf(owner)) * 1e6);
    // The balance is spent to the last micro-dollar before the month closes.
    await ledger.debit({ entryId: crypto.randomUUID(), type: "call", amountMicros: left, callId: crypto.randomUUID(), createdAt: at() });
    await issueInvoices(testServices(), nextMonth());
    const invoice = await invoiceOf(owner);
    expect(invoice).toMatchObject({ status: "due", subtotal: expect.any(Number) });
    expect(invoice.amount_due).toBe(invoice.tax);
    expect(await balanceOf(owner)).toBe(0);
  });

  it("gives nothing of another account's invoice: 404", async () => {
    const owner = await monthOfUse(null);
    const other = await createAccount();
    await issueInvoices(testServices(), nextMonth());
    const invoice = await invoiceOf(owner);
    expect((await other.client.get(`/api/customer/invoices/${invoice.id}`)).status).toBe(404);
    expect((await other.client.get(`/api/customer/invoices/${invoice.id}/pdf`)).status).toBe(404);
    // The other account has its own invoice (its welcome credit), and only that.
    const theirs = bodyOf(await other.client.get("/api/customer/invoices"), 200);
    expect(theirs.items.map((i) => i.id)).not.toContain(invoice.id);
    expect(theirs).toMatchObject({ total: 1, items: [{ lines: [], subtotal: 0, total: 0, credits: [{ kind: "credit", amount: 5 }] }] });
  });
});

describe("GET /customer/invoices/{invoice_id}/pdf", () => {
  it("is a PDF that holds the number, the lines, the tax and the totals", async () => {
    const owner = await monthOfUse(
      { name: "Northern Carrier Inc.", line1: "100 King St W", city: "Toronto", country: "CA", province: "ON" },
      "123456789RT0001",
    );
    await issueInvoices(testServices(), nextMonth());
    const invoice = await invoiceOf(owner);
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/api/customer/invoices/${invoice.id}/pdf`, { headers: { Authorization: `Bearer ${owner.token}` } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const { pages, lines } = await pdfText(new Uint8Array(await res.arrayBuffer()));
    expect(pages).toBe(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        `Invoice ${invoice.number}`,
        "Northern Carrier Inc.",
        "Tax ID: 123456789RT0001",
        "Starter plan, first month",
        "US$49.00",
        "-US$0.02",
        "US$50.27",
        "HST 13%",
        "US$6.54",
        "US$56.81",
        "Settled from the prepaid balance",
        "US$100.00",
      ]),
    );
  });
});
