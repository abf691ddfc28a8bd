// Setup-call requests from the public site.
export { registerLeads as register } from "./routes.ts";
