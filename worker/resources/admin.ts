import { z } from "@hono/zod-openapi";

export const ImpersonateSchema = z
  .object({
    customer_id: z.uuid(),
    reason: z.string().max(500).nullable().optional().openapi({ example: "Ticket 1042: routing question" }),
  })
  .openapi("Impersonate");

/** What the platform's operator lets one account's placed calls do beyond the defaults (our extension). */
export const PlacedCallPolicySchema = z
  .object({
    customer_id: z.uuid(),
    allow_prefixes: z
      .array(z.string().regex(/^\+[1-9][0-9]{0,15}$/, "an E.164 prefix such as +1900555"))
      .max(100)
      .openapi({ description: "Prefixes of refused ranges (premium rate) the account's placed calls may ring", example: ["+1900555"] }),
    calls_per_day: z.number().int().min(0).max(100_000).nullable().openapi({ description: "null: the configured cap", example: 500 }),
    minutes_per_day: z.number().int().min(0).max(1_000_000).nullable().openapi({ description: "null: the configured cap", example: 1000 }),
    effective: z
      .object({ calls_per_day: z.number().int(), minutes_per_day: z.number().int() })
      .openapi({ description: "The caps that apply now (the account's own, else the configured ones for a new or a paying account)" }),
    updated_by: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .openapi("PlacedCallPolicy");
export type PlacedCallPolicy = z.infer<typeof PlacedCallPolicySchema>;

export const PlacedCallPolicyUpdateSchema = PlacedCallPolicySchema.pick({
  allow_prefixes: true,
  calls_per_day: true,
  minutes_per_day: true,
})
  .partial()
  .strict()
  .openapi("PlacedCallPolicyUpdate");
export type PlacedCallPolicyUpdate = z.infer<typeof PlacedCallPolicyUpdateSchema>;

export const CustomerIdParam = z.object({ customer_id: z.uuid().openapi({ param: { name: "customer_id", in: "path" } }) });
