// The buyer eSIM endpoints (v2 paths of the spec, legacy v1 controllers esim_*) and the SM-DP+
// notification endpoint (its own HMAC authentication, not Digest).
import { z } from "zod";
import { listCountries } from "../../services/exchange/esim/countries.ts";
import { listEsims } from "../../services/exchange/esim/inventory.ts";
import { handleNotification, OPERATIONS } from "../../services/exchange/esim/lifecycle.ts";
import { searchMarket } from "../../services/exchange/esim/market.ts";
import { listOrders } from "../../services/exchange/esim/orders.ts";
import { purchaseEsim } from "../../services/exchange/esim/purchase.ts";
import { InventoryList, MarketSearch, OrdersList, Purchase, TopupList, TopupPurchase } from "../../services/exchange/esim/schemas.ts";
import { listTopups, purchaseTopup } from "../../services/exchange/esim/topups.ts";
import { field, iccidField, optional, required } from "../../services/exchange/fields.ts";
import type { ExchangeContext } from "../context.ts";
import { operation, type ExchangeRouter } from "../operation.ts";
import { jsonObjectOf, parseFields, success } from "../respond.ts";
import { verifyNotification } from "./notify-auth.ts";

export const countries = operation({
  role: "buyer",
  input: z.object({}),
  run: async (c) => ({ countries: await listCountries(c.var.services) }),
});

export const market = operation({
  role: "buyer",
  input: MarketSearch,
  run: async (c, input) => searchMarket(c.var.services, input),
});

export const purchase = operation({
  role: "buyer",
  input: Purchase,
  idempotent: "esim_purchase",
  run: async (c, input) => purchaseEsim(c.var.services, c.var.exchange, input),
});

export const inventory = operation({
  role: "buyer",
  input: InventoryList,
  run: async (c, input) => listEsims(c.var.services, c.var.exchange.iAccount, input),
});

export const orders = operation({
  role: "buyer",
  input: OrdersList,
  run: async (c, input) => listOrders(c.var.services, c.var.exchange.iAccount, input),
});

export const topupList = operation({
  role: "buyer",
  input: TopupList,
  run: async (c, input) => listTopups(c.var.services, c.var.exchange.iAccount, input),
});

export const topupPurchase = operation({
  role: "buyer",
  input: TopupPurchase,
  idempotent: "esim_topup_purchase",
  run: async (c, input) => purchaseTopup(c.var.services, c.var.exchange, input),
});

/** The SM-DP+ notification body (JSON). */
export const NotificationBody = z.object({
  iccid: required(iccidField()),
  operation: required(z.enum(OPERATIONS, { error: `must be one of ${OPERATIONS.join(", ")}` })),
  eid: optional(field.digits(32, 32)),
  seq_number: optional(field.integer(0)),
  data_used_bytes: optional(field.integer(0)),
});

export const NOTIFICATIONS_PATH = "/smdp/notifications";

async function notification(c: ExchangeContext): Promise<Response> {
  const d = c.var.services;
  const body = await c.req.text();
  await verifyNotification(d, { timestamp: c.req.header("x-smdp-timestamp"), signature: c.req.header("x-smdp-signature") }, body);
  return success(c, await handleNotification(d, parseFields(NotificationBody, jsonObjectOf(body))));
}

export function registerEsim(router: ExchangeRouter): void {
  router.expose("GET", "/buyers/esim/countries", countries, "esim_countries");
  router.expose("POST", "/buyers/esim/market", market, "esim_market");
  router.expose("POST", "/buyers/esim/purchase", purchase, "esim_purchase");
  router.expose("POST", "/buyers/esim/list", inventory, "esim_list");
  router.expose("POST", "/buyers/esim/orders", orders, "esim_orders");
  router.expose("POST", "/buyers/esim/topup/list", topupList, "esim_topup_list");
  router.expose("POST", "/buyers/esim/topup/purchase", topupPurchase, "esim_topup_purchase");
  router.app.post(NOTIFICATIONS_PATH, notification);
}
