// Automation rules and the controlled numbers (AniControl) they make from verdicts.
import { z } from "@hono/zod-openapi";
import { RECOMMENDATIONS } from "../../schema/enums.ts";
import { pageOf, pageQuery } from "../lib/pagination.ts";
import { screeningConditionFields } from "./screening-conditions.ts";

export const CONTROL_ACTIONS = ["block", "divert"] as const;
export const MAX_AUTOMATION_RULES = 50;
export const DEFAULT_AUTOMATION_MIN_PROBABILITY = 90;
/** A year: a longer control is one meant to last until released (leave duration_hours out). */
export const MAX_DURATION_HOURS = 8_760;

const timestamp = z.string().openapi({ format: "date-time" });

export const AutomationRuleSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: "Block sure scams for a day" }),
    enabled: z.boolean(),
    min_probability: z.number().int().openapi({ example: DEFAULT_AUTOMATION_MIN_PROBABILITY }),
    recommendations: z
      .array(z.string())
      .nullable()
      .openapi({ example: ["block"] }),
    ...screeningConditionFields,
    action: z.enum(CONTROL_ACTIONS),
    divert_destination_id: z.uuid().nullable(),
    duration_hours: z.number().int().nullable().openapi({ example: 24 }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("AutomationRule");

export const AniControlSchema = z
  .object({
    id: z.uuid(),
    ani: z.string().openapi({ description: "The calling number, as digits", example: "14155550100" }),
    action: z.enum(CONTROL_ACTIONS),
    divert_destination_id: z.uuid().nullable(),
    reason: z
      .string()
      .nullable()
      .openapi({ example: "Rule 'Block sure scams': probability 96, recommendation block (bank_impersonation)" }),
    expires_at: timestamp.nullable(),
    released_at: timestamp.nullable(),
    created_at: timestamp,
    rule_id: z.uuid().nullable().optional().openapi({ description: "Our extension: the automation rule that made this control" }),
    call_id: z.uuid().nullable().optional().openapi({ description: "Our extension: the call whose verdict made this control" }),
  })
  .openapi("AniControl");

export const AniControlListSchema = pageOf(AniControlSchema, "AniControlList");

const name = z.string().trim().min(1, "name must not be empty").max(200).openapi({ example: "Block sure scams for a day" });
const minProbability = z.number().int().min(0).max(100);
const recommendations = z.array(z.enum(RECOMMENDATIONS)).max(RECOMMENDATIONS.length);
const durationHours = z
  .number()
  .int()
  .min(1)
  .max(MAX_DURATION_HOURS)
  .openapi({ description: "How long a control lasts; absent: until released" });

export const CreateAutomationRuleSchema = z
  .object({
    name,
    enabled: z.boolean().default(true),
    min_probability: minProbability.default(DEFAULT_AUTOMATION_MIN_PROBABILITY),
    recommendations: recommendations.nullable().default(["block"]),
    identity_statuses: screeningConditionFields.identity_statuses.optional(),
    screening_rules: screeningConditionFields.screening_rules.optional(),
    action: z.enum(CONTROL_ACTIONS).default("block"),
    divert_destination_id: z.uuid().nullable().optional(),
    duration_hours: durationHours.nullable().optional(),
  })
  .openapi("CreateAutomationRule");

export const UpdateAutomationRuleSchema = z
  .object({
    name: name.optional(),
    enabled: z.boolean().optional(),
    min_probability: minProbability.optional(),
    recommendations: recommendations.nullable().optional(),
    identity_statuses: screeningConditionFields.identity_statuses.optional(),
    screening_rules: screeningConditionFields.screening_rules.optional(),
    action: z.enum(CONTROL_ACTIONS).optional(),
    divert_destination_id: z.uuid().nullable().optional(),
    duration_hours: durationHours.nullable().optional(),
    clear_duration: z.boolean().default(false).openapi({ description: "Controls made from now on last until released" }),
  })
  .openapi("UpdateAutomationRule");

export const ControlsQuery = pageQuery().extend({
  include_released: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1")
    .openapi({ description: "Also list released and expired controls", example: "false" }),
});

export const AutomationRuleIdParam = z.object({ rule_id: z.uuid().openapi({ param: { name: "rule_id", in: "path" } }) });
export const ControlIdParam = z.object({ control_id: z.uuid().openapi({ param: { name: "control_id", in: "path" } }) });

export type CreateAutomationRule = z.infer<typeof CreateAutomationRuleSchema>;
export type UpdateAutomationRule = z.infer<typeof UpdateAutomationRuleSchema>;
export type ControlsFilter = z.infer<typeof ControlsQuery>;
