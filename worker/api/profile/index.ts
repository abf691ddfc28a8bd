// The account's qualification profile and the Terms.
export { registerProfile as register } from "./routes.ts";
