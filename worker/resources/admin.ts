import { z } from "@hono/zod-openapi";

export const ImpersonateSchema = z
  .object({
    customer_id: z.uuid(),
    reason: z.string().max(500).nullable().optional().openapi({ example: "Ticket 1042: routing question" }),
  })
  .openapi("Impersonate");
