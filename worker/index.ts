// Worker entry: HTTP (queue consumers and cron join as their issues land), plus the Durable Object classes.
import { newApp } from "./app.ts";
import type { Bindings } from "./env.ts";

export { AccountLedger } from "../durable-objects/account-ledger.ts";
export { Limiter } from "../durable-objects/limiter.ts";
export { NodeHub } from "../durable-objects/node-hub.ts";
export { TrunkRegistry } from "../durable-objects/trunk-registry.ts";

const app = newApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Bindings>;
