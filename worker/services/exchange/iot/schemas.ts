// Form fields of the IoT endpoints.
import { z } from "zod";
import { iccidField } from "../fields.ts";
import { field, optional, paging, required, withDefault } from "../fields.ts";

/** The account's own device identifier: 1-64 of letters, digits, ".", "_", ":", "-". */
const deviceId = () => field.text(64).pipe(z.string().regex(/^[A-Za-z0-9._:-]+$/, { error: "letters, digits, '.', '_', ':' or '-'" }));

export const DeviceRegister = z.object({
  iccid: required(iccidField()),
  device: required(deviceId()),
  label: optional(field.text(100)),
});
export const DeviceRef = z.object({ device: required(deviceId()) });
export const DeviceList = z.object(paging(100, 1000));

export const IOT_PAYLOAD_MAX = 16_384;

export const EventIngest = z.object({
  topic: required(field.text(256)),
  /** Kept as text; a JSON body's object payload is stored as its JSON text. */
  payload: optional(
    z
      .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .transform((v) => (typeof v === "string" ? v : JSON.stringify(v)))
      .pipe(z.string().max(IOT_PAYLOAD_MAX, { error: `at most ${IOT_PAYLOAD_MAX} characters` })),
  ),
  direction: withDefault(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(["inbound", "outbound"], { error: "must be inbound or outbound" })),
    "inbound",
  ),
});

export const IotHistory = z.object({
  date_from: required(field.datetime()),
  date_to: required(field.datetime()),
  device: optional(deviceId()),
  ...paging(100, 1000),
});

export type DeviceRegisterInput = z.output<typeof DeviceRegister>;
export type EventIngestInput = z.output<typeof EventIngest>;
export type IotHistoryInput = z.output<typeof IotHistory>;
export type DeviceListInput = z.output<typeof DeviceList>;
