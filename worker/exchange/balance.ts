// POST /buyers/balance (Get Accounts Balance), legacy controller `balance`: the account's
// balance from its AccountLedger, in USD.
import { z } from "zod";
import { toUsd } from "../lib/money.ts";
import { balanceMicros } from "../services/exchange/ledger.ts";
import { operation } from "./operation.ts";

export const balance = operation({
  role: "buyer",
  input: z.object({}),
  run: async (c) => {
    const { iAccount } = c.var.exchange;
    return { i_account: iAccount, balance: toUsd(await balanceMicros(c.var.services, iAccount)), currency: "USD" };
  },
});
