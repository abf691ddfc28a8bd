// Caller-ID (CLI) checks, hosted numbers and schedules (our extension of the published API).
import type { Api } from "../context.ts";
import { registerCliChecks } from "./check-routes.ts";
import { registerHostedNumbers } from "./hosted-number-routes.ts";
import { registerSchedules } from "./schedule-routes.ts";

export function register(api: Api) {
  registerCliChecks(api);
  registerHostedNumbers(api);
  registerSchedules(api);
}
