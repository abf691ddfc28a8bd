// Per-account request limits of the exchange API: a per-second cap and an hourly quota, fixed
// windows in the Limiter Durable Object (keys "exchange-sec:<i_account>" and
// "exchange-hour:<i_account>"). The platform defaults come from configuration; an account's
// hourly_quota and per_second_cap columns raise (or lower) them. Exceeding either is
// TooManyRequests "rate limit exceeded" (429 with Retry-After).
import { TooManyRequests } from "../errors.ts";
import type { ExchangeAccount } from "./accounts.ts";
import type { ExchangeServices } from "./context.ts";

const rateLimited = (retryAfterSec: number) => new TooManyRequests("rate limit exceeded", retryAfterSec);

export const limitsOf = (s: Pick<ExchangeServices, "config">, account: Pick<ExchangeAccount, "hourlyQuota" | "perSecondCap">) => ({
  perSecond: account.perSecondCap ?? s.config.EXCHANGE_PER_SECOND_CAP,
  hourly: account.hourlyQuota ?? s.config.EXCHANGE_HOURLY_QUOTA,
});

/**
 * Counts one request of an authenticated account. The per-second cap is checked first; a request
 * it refuses does not use the hourly quota.
 */
export async function enforceRateLimit(
  s: Pick<ExchangeServices, "limiter" | "config">,
  account: Pick<ExchangeAccount, "iAccount" | "hourlyQuota" | "perSecondCap">,
): Promise<void> {
  const limits = limitsOf(s, account);
  const second = await s.limiter(`exchange-sec:${account.iAccount}`).hit(limits.perSecond, 1);
  if (!second.allowed) throw rateLimited(second.retryAfterSec);
  const hour = await s.limiter(`exchange-hour:${account.iAccount}`).hit(limits.hourly, 3600);
  if (!hour.allowed) throw rateLimited(hour.retryAfterSec);
}
