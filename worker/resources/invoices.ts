// Monthly invoices (the spec leaves the body open: docs/decisions/call-ledger-and-money.md#invoices).
import { z } from "@hono/zod-openapi";
import { pageOf } from "../lib/pagination.ts";
import { InvoiceBillingAddressSchema, TaxComponentSchema } from "./settings.ts";

export const InvoiceIdParam = z.object({
  invoice_id: z.uuid().openapi({ param: { name: "invoice_id", in: "path" }, example: "019a6c1e-6f2b-7c3d-9e4f-0a1b2c3d4e5f" }),
});

const InvoiceLineSchema = z
  .object({
    kind: z
      .string()
      .openapi({ description: "plan_fee, calls, analysis, refund, or another charge's type; topup, credit", example: "calls" }),
    description: z.string().openapi({ example: "Call minutes" }),
    quantity: z.number().int().nullable().openapi({ description: "Calls, fees or payments counted in the line", example: 120 }),
    amount: z.number().openapi({ description: "USD, to the cent", example: 12.34 }),
  })
  .openapi("InvoiceLine");

export const InvoiceSchema = z
  .object({
    id: z.uuid(),
    number: z.number().int().openapi({ description: "Platform-wide, consecutive without gaps", example: 42 }),
    period_start: z.string().openapi({ format: "date-time", description: "First instant of the calendar month (UTC)" }),
    period_end: z.string().openapi({ format: "date-time", description: "First instant of the next month (exclusive)" }),
    issued_at: z.string().openapi({ format: "date-time" }),
    currency: z.string().openapi({ example: "usd" }),
    lines: z.array(InvoiceLineSchema),
    subtotal: z.number(),
    taxes: z.array(TaxComponentSchema.extend({ amount: z.number() }).openapi("InvoiceTax")),
    tax: z.number(),
    total: z.number(),
    credits: z.array(InvoiceLineSchema).openapi({ description: "Top-ups and credits of the month, shown apart (not in the total)" }),
    tax_exempt: z.boolean(),
    tax_id: z.string().nullable(),
    billing_address: InvoiceBillingAddressSchema,
    status: z.enum(["paid", "due"]).openapi({ description: "paid: settled from the prepaid balance at issue" }),
    amount_due: z.number(),
    pdf_url: z.string().openapi({ example: "/api/customer/invoices/019a6c1e-6f2b-7c3d-9e4f-0a1b2c3d4e5f/pdf" }),
  })
  .openapi("Invoice");

export const InvoiceListSchema = pageOf(InvoiceSchema, "InvoiceList");

export type Invoice = z.infer<typeof InvoiceSchema>;
