// Billing (issue 29): the balance and plan, adding credit through the payment provider's checkout,
// the plans side by side and buying one, the AI tiers, the low-balance alert, the ledger and the
// invoices. The ledger's page and the invoice open are in the URL; so is the checkout's return.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api, must } from "../../api/client.ts";
import { ErrorBox, Loading, PageTitle } from "../../components/ui.tsx";
import { useUrlState } from "../../lib/url-state.ts";
import { AiTiers } from "./ai-tiers.tsx";
import { BalanceCard } from "./balance.tsx";
import { BALANCE_KEY, LEDGER_KEY } from "./keys.ts";
import { Invoices } from "./invoices.tsx";
import { Ledger } from "./ledger.tsx";
import { LowBalanceAlert } from "./low-balance.tsx";
import { Plans } from "./plans.tsx";
import { CheckoutReturn, TopUp } from "./top-up.tsx";

export default function BillingPage() {
  const url = useUrlState();
  const returned = url.get("checkout");
  const queries = useQueryClient();
  const [openedAt] = useState(() => Date.now());
  const balance = useQuery({
    queryKey: BALANCE_KEY,
    queryFn: () => must(api.GET("/customer/balance")),
    // Back from a card payment: the provider's confirmation may trail the browser by a few seconds.
    refetchInterval: () => (returned === "success" && Date.now() - openedAt < 60_000 ? 3_000 : false),
  });
  // Whatever moved the balance (a payment confirmed, a call billed) has its ledger entry.
  const amount = balance.data?.balance;
  const shown = useRef(amount);
  useEffect(() => {
    if (shown.current !== undefined && amount !== shown.current) void queries.invalidateQueries({ queryKey: LEDGER_KEY });
    shown.current = amount;
  }, [amount, queries]);
  return (
    <div className="billing-area">
      <PageTitle>Billing</PageTitle>
      {returned === "success" || returned === "cancelled" ? (
        <CheckoutReturn outcome={returned} onDismiss={() => url.set({ checkout: "" }, { keepOffset: true })} />
      ) : null}
      {balance.isPending ? <Loading what="Loading the balance" /> : null}
      <ErrorBox error={balance.error} />
      {balance.data ? (
        <>
          <BalanceCard balance={balance.data} />
          <TopUp />
          <Plans balance={balance.data} />
        </>
      ) : null}
      <AiTiers />
      <LowBalanceAlert />
      <Ledger />
      <Invoices />
    </div>
  );
}
