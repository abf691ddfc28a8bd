import { z } from "@hono/zod-openapi";

/** Narrowest-accepted widths: an IPv4 range may be at most a /16, an IPv6 range at most a /32. */
export const MIN_PREFIX = { v4: 16, v6: 32 } as const;

/** SIP transports the ingress accepts from carriers (TLS and WSS are not offered on the trunk). */
export const INGRESS_TRANSPORTS = ["udp", "tcp"];

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
    // Proof of control: our extension of the spec's IP entry (docs/decisions/trunk-and-admission.md#proof-of-control-of-whitelisted-ranges).
    admits_calls: z.boolean().openapi({
      description:
        "Our extension. Whether calls from the range are admitted now: a range /24 (IPv6 /48) or narrower at once, " +
        "a wider one or one over another account's unproven claim once verified or approved",
    }),
    pending_reason: z.string().nullable().openapi({ description: "Our extension. Why the entry admits no calls; null when it does" }),
    verification: z.enum(["unverified", "verified", "approved"]).openapi({
      description: "Our extension. Proof of control: verified by the code of our OPTIONS answer, or approved by the platform",
    }),
    verified_at: z.string().nullable().openapi({ format: "date-time", description: "Our extension" }),
  })
  .openapi("IpEntry");

export const VerifyIpEntrySchema = z
  .object({
    code: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .openapi({
        description:
          "The X-Call-Shield-Proof header of our answer to a SIP OPTIONS sent from an address of the range (one code, " +
          "or the header's whole value when it lists several)",
        example: "7K2M9QX4DV1T8HNB",
      }),
  })
  .openapi("VerifyIpEntry");

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
    contest: z
      .boolean()
      .optional()
      .openapi({
        description:
          "Our extension. When the range overlaps another account's unverified entry: make the entry anyway (instead " +
          "of 409); it admits calls once verified, and verifying it displaces the other entry",
      }),
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
