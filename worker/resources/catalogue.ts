import { z } from "@hono/zod-openapi";

export const PlanSchema = z
  .object({
    code: z.string().openapi({ example: "starter" }),
    name: z.string().openapi({ example: "Starter" }),
    monthly_fee: z.number().openapi({ description: "USD per month", example: 49 }),
    ports: z.number().int().openapi({ description: "Concurrent calls", example: 10 }),
    included_minutes: z.number().int().nullable().openapi({ description: "Minutes included per cycle; null when none", example: 5000 }),
    per_minute_rate: z.number().openapi({ description: "USD per minute beyond the included minutes", example: 0.01 }),
    min_billable_seconds: z.number().int().openapi({ description: "A shorter answered call bills this long", example: 60 }),
    active: z.boolean().openapi({ example: true }),
    description: z.string().nullable().openapi({ example: "For a small carrier or contact centre" }),
  })
  .openapi("Plan");

export const AiTierSchema = z
  .object({
    mode: z.string().openapi({ description: "Tier name", example: "power" }),
    analysis_fee_per_call: z.number().openapi({ description: "USD per analysed call", example: 0.02 }),
  })
  .openapi("AiTier");

export const AccountAiTierSchema = AiTierSchema.extend({
  current: z.boolean().openapi({ description: "The account's tier", example: false }),
}).openapi("AccountAiTier");

export type Plan = z.infer<typeof PlanSchema>;
export type AiTier = z.infer<typeof AiTierSchema>;
