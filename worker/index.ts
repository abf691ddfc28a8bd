// Worker entry: HTTP (the API, the node API, the exchange), queue consumers and cron, plus the
// Durable Object classes.
import { newApp } from "./app.ts";
import { runScheduled } from "./cron/index.ts";
import type { Bindings } from "./env.ts";
import { dispatchQueue } from "./queues/index.ts";

export { AccountLedger } from "../durable-objects/account-ledger.ts";
export { Limiter } from "../durable-objects/limiter.ts";
export { NodeHub } from "../durable-objects/node-hub.ts";
export { OAuthGrant } from "../durable-objects/oauth-grant.ts";
export { TrunkRegistry } from "../durable-objects/trunk-registry.ts";

const app = newApp();

export default {
  fetch: app.fetch,
  queue: dispatchQueue,
  scheduled: (controller, env, ctx) => runScheduled(env, controller.scheduledTime, ctx),
} satisfies ExportedHandler<Bindings>;
