import { createRoute } from "@hono/zod-openapi";
import { pageQuery, WIDE_PAGE } from "../../lib/pagination.ts";
import { authenticated } from "../auth/access.ts";
import type { Api } from "../context.ts";
import { errors, jsonBody } from "../responses.ts";
import { BalanceSchema, LedgerListSchema } from "../../resources/billing.ts";
import { balanceOf, listLedger } from "../../services/billing/billing.ts";

const tags = ["Plans and billing"];

const balanceRoute = createRoute({
  method: "get",
  path: "/customer/balance",
  tags,
  summary: "Balance, plan and ports",
  ...authenticated,
  responses: { 200: jsonBody(BalanceSchema, "Balance"), ...errors(401) },
});

const ledgerRoute = createRoute({
  method: "get",
  path: "/customer/ledger",
  tags,
  summary: "Ledger entries, newest first",
  ...authenticated,
  request: { query: pageQuery(WIDE_PAGE) },
  responses: { 200: jsonBody(LedgerListSchema, "Ledger list"), ...errors(401, 422) },
});

export function registerBilling(api: Api) {
  api.openapi(balanceRoute, async (c) => c.json(await balanceOf(c.var.services, c.var.principal), 200));
  api.openapi(ledgerRoute, async (c) => c.json(await listLedger(c.var.services, c.var.principal, c.req.valid("query")), 200));
}
