// The balance, the account's ledger and its plan.
import type { Api } from "../context.ts";
import { registerPlan } from "./plan-routes.ts";
import { registerBilling } from "./routes.ts";

export function register(api: Api): void {
  registerBilling(api);
  registerPlan(api);
}
