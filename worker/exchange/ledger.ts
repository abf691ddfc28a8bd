// The exchange's money. An exchange account's balance lives in its AccountLedger Durable Object
// ("exchange:<i_account>"); this module is the only part of the exchange that talks to it: the
// balance, credits (opening balances, operator top-ups), debits (purchases, top-ups, IoT events)
// and refunds of debits whose purchase could not be stored. Amounts are micro-dollars.
import { ledgerFor } from "../lib/durable-objects.ts";
import { toMicros } from "../lib/money.ts";
import { nowIso } from "../lib/time.ts";
import type { ExchangeDeps } from "./context.ts";
import { ExchangeError, invalidInput } from "./respond.ts";

type LedgerDeps = Pick<ExchangeDeps, "env">;

/** One entry as the exchange writes it; the entry id makes writing it again a no-op. */
export type Posting = { entryId: string; type: string; amountMicros: number; description: string | null; createdAt: string };

/** The AccountLedger key of an exchange account. */
export const ledgerKey = (iAccount: number) => `exchange:${iAccount}`;

const ledgerOf = (deps: LedgerDeps, iAccount: number) => ledgerFor(deps.env, ledgerKey(iAccount));

/** 402 naming the account that cannot pay. */
export const insufficientBalance = (field = "i_account") => new ExchangeError(402, `${field}: insufficient balance`);

/** A USD amount a client gave (decimal text or number), in micro-dollars; 400 naming `field` when it is not one. */
export function usdToMicros(field: string, amountUsd: string | number): number {
  try {
    return toMicros(amountUsd);
  } catch {
    throw invalidInput(field, "must be a USD amount such as 100 or 12.50");
  }
}

/** The account's balance in micro-dollars. */
export async function balanceMicros(deps: LedgerDeps, iAccount: number): Promise<number> {
  return (await ledgerOf(deps, iAccount).summary()).balance_micros;
}

/** Adds money to the account, idempotent by entry id; the balance after it. 400 naming `field` when the ledger refuses the amount. */
export async function credit(deps: LedgerDeps, iAccount: number, posting: Posting, field: string): Promise<number> {
  const credited = await ledgerOf(deps, iAccount).credit(posting);
  if (!credited.ok) throw invalidInput(field, "not a valid amount");
  return credited.entry.balance_after_micros;
}

/** Takes money from the account, idempotent by entry id, or throws the client's error (402 when the balance cannot pay). */
export async function debit(deps: LedgerDeps, iAccount: number, posting: Posting) {
  const debited = await ledgerOf(deps, iAccount).debit(posting);
  if (debited.ok) return debited.entry;
  if (debited.reason === "insufficient_balance") throw insufficientBalance();
  throw invalidInput("i_account", "the amount cannot be charged");
}

/** Gives back a debit whose purchase could not be stored. Idempotent by entry id. */
export async function refund(deps: LedgerDeps, iAccount: number, entryId: string, amountMicros: number, description: string) {
  const posting = { entryId: `refund:${entryId}`, type: "exchange_refund", amountMicros, description, createdAt: nowIso() };
  await ledgerOf(deps, iAccount).credit(posting);
}
