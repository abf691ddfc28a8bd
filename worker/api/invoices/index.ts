// Monthly usage invoices and their PDFs.
export { registerInvoices as register } from "./routes.ts";
