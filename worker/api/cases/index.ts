// Cases: investigation records, optionally about one call, with a comment thread.
export { registerCases as register } from "./routes.ts";
