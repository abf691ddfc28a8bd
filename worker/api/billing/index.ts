// The balance and the account's ledger.
export { registerBilling as register } from "./routes.ts";
