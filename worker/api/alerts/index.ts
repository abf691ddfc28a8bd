// Alert rules and the connected channels they deliver to.
import type { Api } from "../context.ts";
import { registerAlertChannels } from "./channel-routes.ts";
import { registerAlertRules } from "./rule-routes.ts";

export function register(api: Api) {
  registerAlertRules(api);
  registerAlertChannels(api);
}
