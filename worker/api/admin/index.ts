// Platform administration: impersonation of a customer account, and the service team's side of support tickets.
import type { Api } from "../context.ts";
import { registerAdmin } from "./routes.ts";
import { registerSupportDesk } from "./support-routes.ts";

export function register(api: Api): void {
  registerAdmin(api);
  registerSupportDesk(api);
}
