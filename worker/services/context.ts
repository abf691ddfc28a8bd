// Services: what every service verb may use besides its input, built once per request (or per
// queue batch, cron run, MCP call) by the front door. Verbs take (services, principal, input):
// they never see Hono's context, a request, or the raw bindings.
import type { HubCommand } from "../../schema/node-api.ts";
import type { HubOutcome } from "../../durable-objects/node-hub.ts";
import type { ClaimInput, ClaimResult, ProveResult } from "../../durable-objects/trunk-registry.ts";
import type { Bindings, Config } from "../env.ts";
import { database, type Db } from "../lib/db.ts";
import {
  grantFor,
  hubFor,
  ledgerFor,
  limiterFor,
  registryFor,
  type GrantStub,
  type LedgerStub,
  type LimiterStub,
} from "../lib/durable-objects.ts";
import { describeError } from "../lib/errors.ts";
import type { Analyser } from "../providers/analysis/analyser.ts";
import { analyserFrom, transcriberFrom } from "../providers/index.ts";
import { outboundHttp, type OutboundHttp } from "../providers/http/outbound.ts";
import { mailSender, type MailSender } from "../providers/mail/mail.ts";
import type { Transcriber } from "../providers/transcription/transcriber.ts";
import { verdictSinkFor } from "./verdict-listeners.ts";
import type { VerdictSink } from "./verdicts.ts";

/** What the whitelist needs of the TrunkRegistry; tests may pass a stand-in. */
export type Registry = {
  claim(input: ClaimInput): Promise<ClaimResult>;
  release(entryId: string): Promise<{ version: number }>;
  touch(): Promise<{ version: number }>;
  /** Proof of control of an entry's range: marks its claim proven and names the claims it displaced. */
  prove(entryId: string): Promise<ProveResult>;
  /** Moves on every change; nodes poll it to know when to fetch the ranges again. */
  version(): Promise<number>;
};

/** The SIP nodes, reached through the region's NodeHub. */
export type Hub = { command(command: HubCommand, timeoutMs: number, nodeId?: string): Promise<HubOutcome> };

export type Services = {
  db: Db;
  config: Config;
  /** Recordings and captures (R2). */
  media: R2Bucket;
  ledger(accountKey: string): LedgerStub;
  limiter(key: string): LimiterStub;
  /** The OAuthGrant Durable Object of one agent's consent (refresh-token rotation and revocation). */
  grant(grantId: string): GrantStub;
  registry: Registry;
  /** How long a whitelist change waits for the registry before answering "busy, retry". */
  registryTimeoutMs: number;
  hub: Hub;
  mail: MailSender;
  /** POSTs to customer-given URLs (webhook, alert channels) and the name lookups that check them. */
  outbound: OutboundHttp;
  /** analysis: recorded calls to analyse; deliveries: alerts and webhook events to send. */
  queues: { analysis: Queue<unknown>; deliveries: Queue<unknown> };
  /** Speech to text; null when transcription is off or not configured. */
  transcriber: Transcriber | null;
  /** The analyser serving an AI tier. */
  analyserFor(tier: { provider: string; model: string }): Analyser;
  /** Where verdicts go once stored (automation, alerts and the webhook listen there). */
  verdicts: VerdictSink;
  /** Where this service is reached from outside (webhook URLs, recording links, the passkey origin). */
  origin: string;
  /** Keeps work alive after the answer is sent (ExecutionContext.waitUntil where there is one). */
  background(work: Promise<unknown>): void;
};

export const REGISTRY_TIMEOUT_MS = 5_000;

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
    mail: mailSender(db),
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
