import { z } from "@hono/zod-openapi";

/** Narrowest-accepted widths: an IPv4 range may be at most a /16, an IPv6 range at most a /32. */
export const MIN_PREFIX = { v4: 16, v6: 32 } as const;

export const CIDR_IMMUTABLE = "The CIDR cannot be changed: delete the entry and add the new range";

const label = z.string().trim().max(200).nullable().optional().openapi({ example: "Core SBC Frankfurt" });

const dialPrefix = z
  .string()
  .regex(/^\d{1,16}$/, "dial_prefix must be 1 to 16 digits")
  .nullable()
  .optional()
  .openapi({ description: "Digits the sub-customer behind this address dials first", example: "4711" });

export const IpEntrySchema = z
  .object({
    id: z.uuid(),
    cidr: z.string().openapi({ description: "Canonical network/prefix", example: "203.0.113.0/24" }),
    label: z.string().nullable(),
    dial_prefix: z.string().nullable().optional(),
    destination_id: z.uuid().nullable(),
    enabled: z.boolean(),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("IpEntry");

export const CreateIpEntrySchema = z
  .object({
    cidr: z
      .string()
      .max(64)
      .openapi({
        description: `An address or a range with zero host bits; IPv4 up to /${MIN_PREFIX.v4} wide, IPv6 up to /${MIN_PREFIX.v6}`,
        example: "203.0.113.0/24",
      }),
    label,
    dial_prefix: dialPrefix,
    destination_id: z.uuid().nullable().optional(),
    enabled: z.boolean().default(true),
  })
  .openapi("CreateIpEntry");

export const UpdateIpEntrySchema = z
  .object({
    label,
    dial_prefix: dialPrefix,
    destination_id: z.uuid().nullable().optional(),
    enabled: z.boolean().optional(),
    // Named so that a client sending it learns why it is refused (validated in the service).
    cidr: z
      .unknown()
      .optional()
      .openapi({ description: `Not accepted. ${CIDR_IMMUTABLE}.` }),
  })
  .openapi("UpdateIpEntry");

export const IpIdParam = z.object({ ip_id: z.uuid().openapi({ param: { name: "ip_id", in: "path" } }) });

export const NetworkInfoSchema = z
  .object({
    ingress_host: z.string().openapi({ example: "sip.example.net" }),
    ingress_port: z.number().int().openapi({ example: 5060 }),
    transports: z.array(z.string()).openapi({ example: ["udp", "tcp"] }),
  })
  .openapi("NetworkInfo");

export type CreateIpEntry = z.infer<typeof CreateIpEntrySchema>;
export type UpdateIpEntry = z.infer<typeof UpdateIpEntrySchema>;
