import type { Bindings } from "../env.ts";

/** The AccountLedger Durable Object of one account (exchange accounts use "exchange:<i_account>"). */
export const ledgerFor = (env: Bindings, accountKey: string) =>
  env.ACCOUNT_LEDGER.get(env.ACCOUNT_LEDGER.idFromName(accountKey));
