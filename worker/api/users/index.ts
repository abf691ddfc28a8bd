// Members of an account.
export { registerUsers as register } from "./routes.ts";
