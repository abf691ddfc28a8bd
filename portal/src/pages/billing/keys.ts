// Query keys the billing page's parts share: a payment or a plan change refreshes them together.
import type { QueryClient } from "@tanstack/react-query";

export const BALANCE_KEY = ["billing", "balance"] as const;
export const LEDGER_KEY = ["billing", "ledger"] as const;
export const PLANS_KEY = ["billing", "plans"] as const;
export const AI_TIERS_KEY = ["billing", "ai-modes"] as const;
export const LOW_BALANCE_KEY = ["billing", "low-balance-alert"] as const;
export const PAYMENTS_CONFIG_KEY = ["billing", "payments-config"] as const;

/** After money moved (a plan bought, a payment): the balance, the ledger and the session's account. */
export async function refreshMoney(queries: QueryClient) {
  await Promise.all([
    queries.invalidateQueries({ queryKey: BALANCE_KEY }),
    queries.invalidateQueries({ queryKey: LEDGER_KEY }),
    queries.invalidateQueries({ queryKey: LOW_BALANCE_KEY }),
    queries.invalidateQueries({ queryKey: ["me"] }),
  ]);
}
