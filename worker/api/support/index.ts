// Support tickets: questions, bugs, feature requests, billing, and disputes of a call's verdict.
export { registerSupportTickets as register } from "./routes.ts";
