// The Worker's scheduled work. wrangler.toml's [triggers] crons lists when it runs; every job
// here runs at each tick, each on its own, so one failing does not stop the others.
import type { Bindings } from "../env.ts";
import { loadConfig } from "../env.ts";
import { describeError } from "../lib/errors.ts";
import { newServices } from "../composition.ts";
import type { Services } from "../services/context.ts";
import { requeueStaleJobs } from "../services/analysis/pipeline.ts";
import { syncLapsedControls } from "../services/trunk/automation.ts";
import { sweepLowBalanceAlerts } from "../services/alerts/low-balance.ts";
import { renewPlans } from "../services/billing/plans.ts";
import { issueInvoices } from "../services/billing/invoices.ts";
import { sweepTestCalls } from "../services/placed-calls/test-calls.ts";
import { sweepCliChecks } from "../services/cli-checks/checks.ts";
import { runDueSchedules } from "../services/cli-checks/schedules.ts";
import { sweepExpiredCodes } from "../services/oauth/codes.ts";
import { sweepLapsedDialerTokens } from "../services/placed-calls/dialer.ts";
import { sweepExchangeIdempotencyKeys } from "./exchange-idempotency.ts";
import { sweepExchangeNonces } from "./exchange-nonces.ts";
import { sweepExpiredStepTokens } from "./spent-tokens.ts";

type Job = { name: string; run(s: Services, env: Bindings, now: Date): Promise<void> };

export const JOBS: Job[] = [
  { name: "spent step tokens", run: (s, _env, now) => sweepExpiredStepTokens(s, now) },
  { name: "exchange nonce counters", run: (s, _env, now) => sweepExchangeNonces(s, now) },
  { name: "exchange idempotency keys", run: async (s, _env, now) => void (await sweepExchangeIdempotencyKeys(s, now)) },
  { name: "stale analysis jobs", run: async (s, _env, now) => void (await requeueStaleJobs(s, now)) },
  { name: "lapsed controlled numbers", run: async (s, _env, now) => void (await syncLapsedControls(s, now)) },
  { name: "low-balance alerts", run: async (s) => void (await sweepLowBalanceAlerts(s)) },
  { name: "plan renewals", run: async (s, _env, now) => void (await renewPlans(s, now)) },
  { name: "monthly invoices", run: async (s, _env, now) => void (await issueInvoices(s, now)) },
  { name: "test calls: lapsed confirmations and lost dispatches", run: (s, _env, now) => sweepTestCalls(s, now) },
  { name: "CLI checks: calls that never arrived", run: (s, _env, now) => sweepCliChecks(s, now) },
  { name: "CLI and route-test schedules due", run: (s, _env, now) => runDueSchedules(s, now) },
  { name: "expired OAuth codes", run: (s, _env, now) => sweepExpiredCodes(s, now) },
  { name: "lapsed web dialer tokens", run: (s, _env, now) => sweepLapsedDialerTokens(s, now) },
];

/** Runs every job for the tick at `scheduledTime`; throws after all ran if any failed, so the run shows as failed. */
export async function runScheduled(env: Bindings, scheduledTime: number, ctx: ExecutionContext): Promise<void> {
  const now = new Date(scheduledTime);
  const services = newServices(env, loadConfig(env), { origin: "https://cron.invalid", background: (w) => ctx.waitUntil(w) });
  const outcomes = await Promise.allSettled(JOBS.map((job) => job.run(services, env, now)));
  const failed = outcomes.flatMap((o, i) => (o.status === "rejected" ? [`${JOBS[i]!.name}: ${describeError(o.reason)}`] : []));
  for (const line of failed) console.error("cron job failed", line);
  if (failed.length > 0) throw new Error(`${failed.length} cron job(s) failed`);
}
