import { z } from "@hono/zod-openapi";

export const DEFAULT_PRIORITY = 100;

const prefix = z
  .string()
  .max(20, "prefix must be at most 20 characters")
  .regex(/^\+?\d+$/, "prefix must be digits, optionally after a leading +")
  .openapi({ description: "Leading digits of the dialed number, optionally after a +", example: "+4930" });

const priority = z
  .number()
  .int()
  .min(0)
  .max(2_147_483_647)
  .openapi({ description: "Among rules of equal prefix length, the lowest value wins", example: DEFAULT_PRIORITY });

const label = z.string().trim().max(200).nullable().optional().openapi({ example: "Berlin via SBC 2" });

export const RoutingRuleSchema = z
  .object({
    id: z.uuid(),
    prefix: z.string().openapi({ example: "+4930" }),
    destination_id: z.uuid(),
    enabled: z.boolean(),
    priority: z.number().int().openapi({ example: DEFAULT_PRIORITY }),
    label: z.string().nullable(),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("RoutingRule");

const ruleFields = z.object({ prefix, destination_id: z.uuid(), enabled: z.boolean(), priority, label });

export const CreateRoutingRuleSchema = ruleFields
  .extend({ enabled: z.boolean().default(true), priority: priority.default(DEFAULT_PRIORITY) })
  .openapi("CreateRoutingRule");

/** Any of the fields, each optional; a missing one is left as it is. */
export const UpdateRoutingRuleSchema = ruleFields.partial().openapi("UpdateRoutingRule");

export const RuleIdParam = z.object({ rule_id: z.uuid().openapi({ param: { name: "rule_id", in: "path" } }) });

export type CreateRoutingRule = z.infer<typeof CreateRoutingRuleSchema>;
export type UpdateRoutingRule = z.infer<typeof UpdateRoutingRuleSchema>;
