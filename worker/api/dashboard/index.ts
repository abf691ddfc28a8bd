// The account's dashboard and statistics (live calls are with the calls).
export { registerDashboard as register } from "./routes.ts";
