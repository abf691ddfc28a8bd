// Services: what every service verb may use besides its input, built once per request (or per
// queue batch, cron run, MCP call) by the front door through worker/composition.ts. Verbs take
// (services, principal, input): they never see Hono's context, a request, or the raw bindings.
import type { HubCommand } from "../../schema/node-api.ts";
import type { HubOutcome } from "../../durable-objects/node-hub.ts";
import type { ClaimInput, ClaimResult, ProveResult } from "../../durable-objects/trunk-registry.ts";
import type { Config } from "../env.ts";
import type { Db } from "../lib/db.ts";
import type { GrantStub, LedgerStub, LimiterStub } from "../lib/durable-objects.ts";
import type { Analyser } from "../providers/analysis/analyser.ts";
import type { OutboundHttp } from "../providers/http/outbound.ts";
import type { MailSender } from "../providers/mail/mail.ts";
import type { Transcriber } from "../providers/transcription/transcriber.ts";
import type { VerdictSink } from "./analysis/verdicts.ts";

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
