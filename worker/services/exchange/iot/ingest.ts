// Device event ingestion: the device's token names the account and eSIM; each event is charged
// IOT_EVENT_CHARGE_USD to the owner through its AccountLedger before it is recorded, so an event
// the balance cannot pay is refused (402) and not stored. Time is the server's receive time (UTC).
import { and, eq } from "drizzle-orm";
import { esims, iotEvents } from "../../../../schema/exchange.ts";
import { newId } from "../../../lib/ids.ts";
import { toUsd } from "../../../lib/money.ts";
import { nowIso } from "../../../lib/time.ts";
import { datetimeOf } from "../fields.ts";
import type { ExchangeServices } from "../context.ts";
import { debit, refund } from "../ledger.ts";
import { conflict } from "../errors.ts";
import type { deviceByToken } from "./devices.ts";
import type { EventIngestInput } from "./schemas.ts";

type Device = NonNullable<Awaited<ReturnType<typeof deviceByToken>>>;

export async function ingestEvent(s: ExchangeServices, device: Device, input: EventIngestInput) {
  if (device.iccid) {
    const [esim] = await s.db
      .select({ status: esims.status })
      .from(esims)
      .where(and(eq(esims.iccid, device.iccid), eq(esims.iAccount, device.iAccount)));
    if (!esim || esim.status === "DELETED") throw conflict("device", "its eSIM was deleted");
  }
  const eventUuid = newId();
  const ts = nowIso();
  const charge = s.settings.iotEventChargeMicros;
  const entryId = `iot:${eventUuid}`;
  if (charge > 0) {
    const description = `IoT event ${input.topic} from ${device.device}`;
    await debit(s, device.iAccount, { entryId, type: "iot_event", amountMicros: charge, description, createdAt: ts });
  }
  try {
    const [row] = await s.db
      .insert(iotEvents)
      .values({
        iAccount: device.iAccount,
        device: device.device,
        iccid: device.iccid,
        eventUuid,
        ts,
        topic: input.topic,
        payload: input.payload ?? null,
        direction: input.direction,
        chargedMicros: charge,
      })
      .returning({ id: iotEvents.id });
    const { device: name, iccid } = device;
    return { i_event: row!.id, event_uuid: eventUuid, time: datetimeOf(ts), device: name, iccid, charged: toUsd(charge) };
  } catch (err) {
    if (charge > 0) await refund(s, device.iAccount, entryId, charge, `IoT event ${eventUuid} not recorded`);
    throw err;
  }
}
