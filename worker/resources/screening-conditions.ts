// Conditions on a call's screening (issue 32) that automation and alert rules share: the caller
// ID's identity status at admission, and the screening rules that flagged the call.
import { z } from "@hono/zod-openapi";
import { IdentityStatus, RULE_NAMES, type RuleName } from "../../schema/screening.ts";

const RULES = RULE_NAMES as [RuleName, ...RuleName[]];

export const screeningConditionFields = {
  identity_statuses: z
    .array(IdentityStatus, { error: `identity_statuses must list ${IdentityStatus.options.join(", ")}` })
    .max(IdentityStatus.options.length)
    .nullable()
    .openapi({
      description: "Only calls whose caller ID's verification at admission is one of these (verified, failed, absent); null or empty: any",
      example: ["failed", "absent"],
    }),
  screening_rules: z
    .array(z.enum(RULES, { error: `screening_rules must be screening rule names: ${RULE_NAMES.join(", ")}` }))
    .max(RULE_NAMES.length)
    .nullable()
    .openapi({
      description:
        "Only calls one of these screening rules flagged (GET /customer/screening/rules names them); null or empty: no such condition",
      example: ["calls_per_minute", "sequential_dialling"],
    }),
};
