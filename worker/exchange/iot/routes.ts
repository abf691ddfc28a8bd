// IoT: POST /buyers/iothistory (buyer key; legacy v1 `iothistory`), device management for buyers
//   POST /buyers/iot/devices          register a device on an eSIM (or rotate its token): {device, iccid, label, token}
//   POST /buyers/iot/devices/list     the account's devices (no tokens)
//   POST /buyers/iot/devices/delete   removes a device and its token
// and device ingestion, authenticated by the device's token, not Digest:
//   POST /iot/events   Authorization: Bearer iot_...   fields topic, payload, direction (form or JSON)
import type { ExchangeContext } from "../context.ts";
import { exchangeDeps } from "../context.ts";
import { withSettings } from "../esim/settings.ts";
import { operation, type ExchangeRouter } from "../operation.ts";
import { ExchangeError, formOf, success } from "../respond.ts";
import { deleteDevice, deviceByToken, listDevices, registerDevice } from "./devices.ts";
import { iotHistory } from "./history.ts";
import { ingestEvent } from "./ingest.ts";
import { DeviceList, DeviceRef, DeviceRegister, EventIngest, IotHistory } from "./schemas.ts";

const deps = (c: ExchangeContext) => withSettings(exchangeDeps(c));

export const history = operation({
  role: "buyer",
  input: IotHistory,
  run: async (c, input) => iotHistory(deps(c), c.var.exchange.iAccount, input),
});

export const deviceRegister = operation({
  role: "buyer",
  input: DeviceRegister,
  run: async (c, input) => registerDevice(deps(c), c.var.exchange.iAccount, input),
});

export const deviceList = operation({
  role: "buyer",
  input: DeviceList,
  run: async (c, input) => listDevices(deps(c), c.var.exchange.iAccount, input),
});

export const deviceDelete = operation({
  role: "buyer",
  input: DeviceRef,
  run: async (c, input) => deleteDevice(deps(c), c.var.exchange.iAccount, input.device),
});

export const IOT_EVENTS_PATH = "/iot/events";

const deviceRefused = () => new ExchangeError(401, "device token missing or invalid", { "WWW-Authenticate": 'Bearer realm="iot"' });

async function ingest(c: ExchangeContext): Promise<Response> {
  const d = deps(c);
  const token = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  const device = token ? await deviceByToken(d.db, token) : null;
  if (!device) throw deviceRefused();
  const input = await formOf(c, EventIngest);
  return success(c, { event: await ingestEvent(d, device, input) });
}

export function registerIot(router: ExchangeRouter): void {
  router.expose("POST", "/buyers/iothistory", history, "iothistory");
  router.expose("POST", "/buyers/iot/devices", deviceRegister, "iot_devices_register");
  router.expose("POST", "/buyers/iot/devices/list", deviceList, "iot_devices_list");
  router.expose("POST", "/buyers/iot/devices/delete", deviceDelete, "iot_devices_delete");
  router.app.post(IOT_EVENTS_PATH, ingest);
}
