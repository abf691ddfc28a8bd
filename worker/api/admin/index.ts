// Platform administration: impersonation of a customer account.
export { registerAdmin as register } from "./routes.ts";
