// Per-account request limits of the exchange API: a per-second cap and an hourly quota, fixed
// windows in the Limiter Durable Object (keys "exchange-sec:<i_account>" and
// "exchange-hour:<i_account>"). The platform defaults come from configuration; an account's
// hourly_quota and per_second_cap columns raise (or lower) them. Exceeding either answers 429
// {status: "error", message: "rate limit exceeded"} with Retry-After.
import { limiterFor } from "../lib/durable-objects.ts";
import type { ExchangeAccount } from "./accounts.ts";
import type { ExchangeDeps } from "./context.ts";
import { rateLimited } from "./respond.ts";

export const limitsOf = (deps: Pick<ExchangeDeps, "config">, account: Pick<ExchangeAccount, "hourlyQuota" | "perSecondCap">) => ({
  perSecond: account.perSecondCap ?? deps.config.EXCHANGE_PER_SECOND_CAP,
  hourly: account.hourlyQuota ?? deps.config.EXCHANGE_HOURLY_QUOTA,
});

/**
 * Counts one request of an authenticated account. The per-second cap is checked first; a request
 * it refuses does not use the hourly quota.
 */
export async function enforceRateLimit(
  deps: Pick<ExchangeDeps, "env" | "config">,
  account: Pick<ExchangeAccount, "iAccount" | "hourlyQuota" | "perSecondCap">,
): Promise<void> {
  const limits = limitsOf(deps, account);
  const second = await limiterFor(deps.env, `exchange-sec:${account.iAccount}`).hit(limits.perSecond, 1);
  if (!second.allowed) throw rateLimited(second.retryAfterSec);
  const hour = await limiterFor(deps.env, `exchange-hour:${account.iAccount}`).hit(limits.hourly, 3600);
  if (!hour.allowed) throw rateLimited(hour.retryAfterSec);
}
