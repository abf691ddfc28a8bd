import { createRoute } from "@hono/zod-openapi";
import { pageQuery, WIDE_PAGE } from "../../lib/pagination.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { binaryBody, errors, jsonBody } from "../responses.ts";
import { InvoiceIdParam, InvoiceListSchema, InvoiceSchema } from "../../resources/invoices.ts";
import { getInvoice, invoicePdf, listInvoices } from "../../services/billing/invoices.ts";

const tags = ["Plans and billing"];

const listRoute = createRoute({
  method: "get",
  path: "/customer/invoices",
  tags,
  summary: "Monthly usage invoices, newest first",
  description:
    "One per calendar month (UTC) in which money moved, issued in the first three days of the next month and never changed after. " +
    "Tax by the billing address at issue: exempt outside Canada; HST 13% ON, 15% NB/NL/NS/PE; 5% GST elsewhere in Canada.",
  ...authenticated,
  request: { query: pageQuery(WIDE_PAGE) },
  responses: { 200: jsonBody(InvoiceListSchema, "Invoice list"), ...errors(401, 422) },
});

const getRoute = createRoute({
  method: "get",
  path: "/customer/invoices/{invoice_id}",
  tags,
  summary: "One invoice",
  ...authenticated,
  request: { params: InvoiceIdParam },
  responses: { 200: jsonBody(InvoiceSchema, "Invoice"), ...errors(401, 404, 422) },
});

const pdfRoute = createRoute({
  method: "get",
  path: "/customer/invoices/{invoice_id}/pdf",
  tags,
  summary: "The invoice as a PDF",
  description: "Our extension of the published API.",
  ...authenticated,
  request: { params: InvoiceIdParam },
  responses: { 200: binaryBody("The invoice", "application/pdf"), ...errors(401, 404, 422) },
});

export function registerInvoices(api: Api) {
  api.openapi(listRoute, async (c) => c.json(await listInvoices(c.var.services, c.var.principal, c.req.valid("query")), 200));
  api.openapi(getRoute, async (c) => c.json(await getInvoice(c.var.services, c.var.principal, c.req.valid("param").invoice_id), 200));
  api.openapi(pdfRoute, async (c) => {
    const { bytes, filename } = await invoicePdf(c.var.services, c.var.principal, c.req.valid("param").invoice_id);
    return new Response(bytes, {
      status: 200,
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `inline; filename="${filename}"`,
        "Cache-Control": "private, no-store",
      },
    });
  });
}
