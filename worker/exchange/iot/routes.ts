// IoT: POST /buyers/iothistory (buyer key; legacy v1 `iothistory`), device management for buyers
//   POST /buyers/iot/devices          register a device on an eSIM (or rotate its token): {device, iccid, label, token}
//   POST /buyers/iot/devices/list     the account's devices (no tokens)
//   POST /buyers/iot/devices/delete   removes a device and its token
// and device ingestion, authenticated by the device's token, not Digest:
//   POST /iot/events   Authorization: Bearer iot_...   fields topic, payload, direction (form or JSON)
import { deleteDevice, deviceByToken, listDevices, registerDevice } from "../../services/exchange/iot/devices.ts";
import { iotHistory } from "../../services/exchange/iot/history.ts";
import { ingestEvent } from "../../services/exchange/iot/ingest.ts";
import { DeviceList, DeviceRef, DeviceRegister, EventIngest, IotHistory } from "../../services/exchange/iot/schemas.ts";
import type { ExchangeContext } from "../context.ts";
import { operation, type ExchangeRouter } from "../operation.ts";
import { ExchangeError, formOf, success } from "../respond.ts";

export const history = operation({
  role: "buyer",
  input: IotHistory,
  run: async (c, input) => iotHistory(c.var.services, c.var.exchange.iAccount, input),
});

export const deviceRegister = operation({
  role: "buyer",
  input: DeviceRegister,
  run: async (c, input) => registerDevice(c.var.services, c.var.exchange.iAccount, input),
});

export const deviceList = operation({
  role: "buyer",
  input: DeviceList,
  run: async (c, input) => listDevices(c.var.services, c.var.exchange.iAccount, input),
});

export const deviceDelete = operation({
  role: "buyer",
  input: DeviceRef,
  run: async (c, input) => deleteDevice(c.var.services, c.var.exchange.iAccount, input.device),
});

export const IOT_EVENTS_PATH = "/iot/events";

const deviceRefused = () => new ExchangeError(401, "device token missing or invalid", { "WWW-Authenticate": 'Bearer realm="iot"' });

async function ingest(c: ExchangeContext): Promise<Response> {
  const token = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  const device = token ? await deviceByToken(c.var.services, token) : null;
  if (!device) throw deviceRefused();
  const input = await formOf(c, EventIngest);
  return success(c, { event: await ingestEvent(c.var.services, device, input) });
}

export function registerIot(router: ExchangeRouter): void {
  router.expose("POST", "/buyers/iothistory", history, "iothistory");
  router.expose("POST", "/buyers/iot/devices", deviceRegister, "iot_devices_register");
  router.expose("POST", "/buyers/iot/devices/list", deviceList, "iot_devices_list");
  router.expose("POST", "/buyers/iot/devices/delete", deviceDelete, "iot_devices_delete");
  router.app.post(IOT_EVENTS_PATH, ingest);
}
