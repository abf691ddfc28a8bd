// POST /buyers/iothistory: the account's IoT events between date_from and date_to (UTC, both
// inclusive to the second), newest first. JSON keys of an event: i_event, time, device, iccid,
// topic, payload, direction, charged (USD).
import { and, count, desc, eq, gte, lt } from "drizzle-orm";
import { iotEvents } from "../../../../schema/exchange.ts";
import { toUsd } from "../../../lib/money.ts";
import { addSeconds } from "../../../lib/time.ts";
import { datetimeOf } from "../fields.ts";
import type { ExchangeServices } from "../context.ts";
import { invalidInput } from "../errors.ts";
import type { IotHistoryInput } from "./schemas.ts";

type EventRow = typeof iotEvents.$inferSelect;

export const eventView = (e: EventRow) => ({
  i_event: e.id,
  time: datetimeOf(e.ts),
  device: e.device,
  iccid: e.iccid,
  topic: e.topic,
  payload: e.payload,
  direction: e.direction,
  charged: toUsd(e.chargedMicros),
});

export async function iotHistory(s: ExchangeServices, iAccount: number, input: IotHistoryInput) {
  if (input.date_to < input.date_from) throw invalidInput("date_to", "must not be before date_from");
  const where = and(
    eq(iotEvents.iAccount, iAccount),
    gte(iotEvents.ts, input.date_from),
    lt(iotEvents.ts, addSeconds(input.date_to, 1)),
    input.device ? eq(iotEvents.device, input.device) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    s.db.select().from(iotEvents).where(where).orderBy(desc(iotEvents.ts), desc(iotEvents.id)).limit(input.pager).offset(input.off),
    s.db.select({ n: count() }).from(iotEvents).where(where),
  ]);
  return {
    date_from: datetimeOf(input.date_from),
    date_to: datetimeOf(input.date_to),
    total: total?.n ?? 0,
    pager: input.pager,
    off: input.off,
    events: rows.map(eventView),
  };
}
