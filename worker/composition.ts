// The composition root: the one place that builds a Services from the Worker's bindings and
// plugs the verdict listeners into it. Front doors (the app, queues, cron) call newServices; no
// service imports this file, so services never depend on one another through the wiring.
import type { Bindings, Config } from "./env.ts";
import { database } from "./lib/db.ts";
import { grantFor, hubFor, ledgerFor, limiterFor, registryFor } from "./lib/durable-objects.ts";
import { describeError } from "./lib/errors.ts";
import { analyserFrom, transcriberFrom } from "./providers/index.ts";
import { outboundHttp } from "./providers/http/outbound.ts";
import { mailSender } from "./providers/mail/mail.ts";
import { alertListener } from "./services/alerts/alerts.ts";
import { keepInOutbox } from "./services/alerts/outbox.ts";
import { listenersSink, type VerdictListener, type VerdictSink } from "./services/analysis/verdicts.ts";
import { REGISTRY_TIMEOUT_MS, type Hub, type Registry, type Services } from "./services/context.ts";
import { automationListener } from "./services/trunk/automation.ts";
import { emitNumberControlled, webhookListener } from "./services/webhooks/account-webhook.ts";

/**
 * Who acts on a stored verdict, in order: automation (controls the caller's number), alert rules
 * (e-mail and connected channels), the account webhook. Each runs on its own: a failing one is
 * logged by the sink and does not stop the next.
 */
export function verdictListeners(s: Services): VerdictListener[] {
  return [automationListener(s, (created) => emitNumberControlled(s, created)), alertListener(s), webhookListener(s)];
}

/** The sink a Services hands verdicts to; tests that replace outside edges build it again over their Services. */
export const verdictSinkFor = (s: Services): VerdictSink => listenersSink(verdictListeners(s));

export type ServicesOptions = { origin: string; background?: (work: Promise<unknown>) => void };

export function newServices(env: Bindings, config: Config, options: ServicesOptions): Services {
  const db = database(env.DB);
  let registry: Registry | undefined;
  let hub: Hub | undefined;
  const services: Services = {
    db,
    config,
    media: env.MEDIA,
    ledger: (accountKey) => ledgerFor(env, accountKey),
    limiter: (key) => limiterFor(env, key),
    grant: (grantId) => grantFor(env, grantId),
    // Durable Object stubs are made when first used: most requests need neither.
    get registry() {
      return (registry ??= registryFor(env));
    },
    registryTimeoutMs: REGISTRY_TIMEOUT_MS,
    get hub() {
      return (hub ??= hubFor(env));
    },
    mail: mailSender((message) => keepInOutbox(db, message)),
    outbound: outboundHttp(),
    queues: { analysis: env.ANALYSIS_QUEUE, deliveries: env.DELIVERY_QUEUE },
    transcriber: transcriberFrom(config, env),
    analyserFor: (tier) => analyserFrom(tier, config, env),
    // Set below: the listeners (automation, alert rules, the webhook) act through these same services.
    verdicts: { deliver: async () => {} },
    origin: options.origin,
    // Without an execution context (a test calling the app directly) the work runs unawaited.
    background:
      options.background ?? ((work) => void work.catch((err: unknown) => console.error("background work failed", describeError(err)))),
  };
  services.verdicts = verdictSinkFor(services);
  return services;
}
