// The exchange's money. An exchange account's balance lives in its AccountLedger Durable Object
// ("exchange:<i_account>"); this module is the only part of the exchange that talks to it: the
// balance, credits (opening balances, operator top-ups), debits (purchases, top-ups, IoT events)
// and refunds of debits whose purchase could not be stored. Amounts are micro-dollars.
import { toMicros } from "../../lib/money.ts";
import { nowIso } from "../../lib/time.ts";
import { PaymentRequired } from "../errors.ts";
import type { ExchangeServices } from "./context.ts";
import { invalidInput } from "./errors.ts";

type LedgerServices = Pick<ExchangeServices, "ledger">;

/** One entry as the exchange writes it; the entry id makes writing it again a no-op. */
export type Posting = { entryId: string; type: string; amountMicros: number; description: string | null; createdAt: string };

/** The AccountLedger key of an exchange account. */
export const ledgerKey = (iAccount: number) => `exchange:${iAccount}`;

const ledgerOf = (s: LedgerServices, iAccount: number) => s.ledger(ledgerKey(iAccount));

/** 402 naming the account that cannot pay. */
export const insufficientBalance = (field = "i_account") => new PaymentRequired(`${field}: insufficient balance`);

/** A USD amount a client gave (decimal text or number), in micro-dollars; 400 naming `field` when it is not one. */
export function usdToMicros(field: string, amountUsd: string | number): number {
  try {
    return toMicros(amountUsd);
  } catch {
    throw invalidInput(field, "must be a USD amount such as 100 or 12.50");
  }
}

/** The account's balance in micro-dollars. */
export async function balanceMicros(s: LedgerServices, iAccount: number): Promise<number> {
  return (await ledgerOf(s, iAccount).summary()).balance_micros;
}

/** Adds money to the account, idempotent by entry id; the balance after it. 400 naming `field` when the ledger refuses the amount. */
export async function credit(s: LedgerServices, iAccount: number, posting: Posting, field: string): Promise<number> {
  const credited = await ledgerOf(s, iAccount).credit(posting);
  if (!credited.ok) throw invalidInput(field, "not a valid amount");
  return credited.entry.balance_after_micros;
}

/** Takes money from the account, idempotent by entry id, or throws the client's error (402 when the balance cannot pay). */
export async function debit(s: LedgerServices, iAccount: number, posting: Posting) {
  const debited = await ledgerOf(s, iAccount).debit(posting);
  if (debited.ok) return debited.entry;
  if (debited.reason === "insufficient_balance") throw insufficientBalance();
  throw invalidInput("i_account", "the amount cannot be charged");
}

/** Gives back a debit whose purchase could not be stored. Idempotent by entry id. */
export async function refund(s: LedgerServices, iAccount: number, entryId: string, amountMicros: number, description: string) {
  const posting = { entryId: `refund:${entryId}`, type: "exchange_refund", amountMicros, description, createdAt: nowIso() };
  await ledgerOf(s, iAccount).credit(posting);
}
