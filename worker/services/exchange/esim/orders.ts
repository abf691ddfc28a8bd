// The buyer's orders (purchases and top-ups): the row a paid order leaves, and the list by UTC
// time range, newest first.
import { and, count, desc, eq, gte, lt } from "drizzle-orm";
import { esimOrders } from "../../../../schema/exchange.ts";
import type { Db } from "../../../lib/db.ts";
import { toUsd } from "../../../lib/money.ts";
import { addSeconds } from "../../../lib/time.ts";
import { invalidInput } from "../errors.ts";
import { datetimeOf } from "../fields.ts";
import type { OrdersListInput } from "./schemas.ts";
import type { ExchangeServices } from "../context.ts";

type OrderRow = typeof esimOrders.$inferSelect;

export const orderView = (o: OrderRow) => ({
  i_esim_order: o.iEsimOrder,
  order_type: o.orderType,
  amount_charged: toUsd(o.amountChargedMicros),
  status: o.status,
  order_uuid: o.orderUuid,
  create_ts: datetimeOf(o.createTs),
  iccid: o.iccid,
  package_name: o.packageName,
  i_esim_package: o.iEsimPackage,
  package_type_id: o.packageTypeId,
});

/** The INSERT of a paid order's row (status complete), returning its i_esim_order: run in the batch that applies the order. */
export const insertCompleteOrder = (db: Db, order: Omit<typeof esimOrders.$inferInsert, "status">) =>
  db
    .insert(esimOrders)
    .values({ ...order, status: "complete" })
    .returning({ iEsimOrder: esimOrders.iEsimOrder });

/** date_from and date_to are inclusive, to the second (an order at date_to's second counts). */
export async function listOrders(s: ExchangeServices, iAccount: number, input: OrdersListInput) {
  if (input.date_from && input.date_to && input.date_to < input.date_from) throw invalidInput("date_to", "must not be before date_from");
  const where = and(
    eq(esimOrders.iAccount, iAccount),
    input.date_from ? gte(esimOrders.createTs, input.date_from) : undefined,
    input.date_to ? lt(esimOrders.createTs, addSeconds(input.date_to, 1)) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    s.db
      .select()
      .from(esimOrders)
      .where(where)
      .orderBy(desc(esimOrders.createTs), desc(esimOrders.iEsimOrder))
      .limit(input.pager)
      .offset(input.off),
    s.db.select({ n: count() }).from(esimOrders).where(where),
  ]);
  return { total: total?.n ?? 0, pager: input.pager, off: input.off, orders: rows.map(orderView) };
}
