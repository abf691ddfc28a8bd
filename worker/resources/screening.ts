// Screening before answer (our extension of the published API): the account's rules (every rule
// with its defaults filled in), its do-not-originate list, and how many calls each rule refused,
// diverted and flagged. The rules and their defaults are schema/screening.ts's.
import { z } from "@hono/zod-openapi";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import {
  RULE_DEFAULTS,
  RULE_NAMES,
  SCREENING_ACTIONS,
  VELOCITY_RULES,
  VelocityScope,
  type RuleName,
  type VelocityRule,
} from "../../schema/screening.ts";
import { pageOf, pageQuery, WIDE_PAGE } from "../lib/pagination.ts";

const ts = () => z.string().openapi({ format: "date-time" });

/** Most numbers one POST adds, and most the list holds (it travels in the admission state the ledger keeps). */
export const MAX_DNO_PER_REQUEST = 10_000;
export const MAX_DNO_NUMBERS = 50_000;

/** The thresholds each velocity rule accepts: a count of calls or numbers, a run length, a percentage. */
export const THRESHOLD_RANGES: Record<VelocityRule, { min: number; max: number; unit: string }> = {
  calls_per_minute: { min: 1, max: 100_000, unit: "calls from one key in a minute" },
  concurrent_calls: { min: 1, max: 100_000, unit: "calls from one key at once" },
  distinct_numbers_per_hour: { min: 1, max: 1_000_000, unit: "distinct numbers dialled by one key in an hour" },
  sequential_dialling: { min: 2, max: 10_000, unit: "consecutive numbers dialled by one key" },
  short_call_share: { min: 1, max: 99, unit: "percent of one key's calls in the last hour" },
};

const RULE_DESCRIPTIONS: Record<RuleName, string> = {
  invalid_caller_id: "The caller ID cannot be a telephone number, or is not one in service in its numbering plan",
  caller_id_equals_dialled: "The caller ID is the number dialled",
  neighbour_spoofing:
    "The caller ID shares the dialled number's neighbourhood: in the NANP its area code and exchange, elsewhere all its national digits but the last 4",
  do_not_originate: "The caller ID is on the account's do-not-originate list",
  identity_failed: "The caller ID's PASSporT (STIR/SHAKEN Identity header) failed verification",
  verstat_failed: "An upstream carrier verified the caller ID and reported TN-Validation-Failed",
  unverified_domestic: "The caller ID is in the dialled number's country (calling code) and has no verified attestation",
  calls_per_minute: "More calls than the threshold in a minute from one key",
  concurrent_calls: "More calls than the threshold at once from one key",
  distinct_numbers_per_hour: "More distinct numbers than the threshold dialled by one key in an hour",
  sequential_dialling: "A run of more consecutive numbers than the threshold (each one more than the last) from one key",
  short_call_share:
    "Over threshold percent of one key's calls in the last hour ended within short_seconds of admission (once min_calls have ended)",
};

const action = z.enum(SCREENING_ACTIONS).openapi({
  description: "off; flag (kept on the call); refuse (603, Reason naming the rule); divert (to divert_destination_id)",
});
const divertDestination = z.uuid().openapi({ description: "With action divert: the account's destination the call goes to instead" });
const isVelocity = (rule: RuleName): rule is VelocityRule => (VELOCITY_RULES as readonly string[]).includes(rule);

function ruleInput(rule: RuleName) {
  const base = { action: action.optional(), divert_destination_id: divertDestination.nullable().optional() };
  if (!isVelocity(rule)) return z.strictObject(base).openapi({ description: RULE_DESCRIPTIONS[rule] });
  const range = THRESHOLD_RANGES[rule];
  const velocity = {
    ...base,
    scope: VelocityScope.optional().openapi({ description: "What is counted by: caller_id, dialled_prefix or source (address)" }),
    threshold: z
      .number()
      .int()
      .min(range.min)
      .max(range.max)
      .optional()
      .openapi({ description: `The most allowed: ${range.unit} (${range.min}-${range.max}); a call beyond it breaks the rule` }),
    prefix: z
      .string()
      .trim()
      .regex(/^\+?[0-9]{1,15}$/, "prefix must be digits, such as 1800")
      .nullable()
      .optional()
      .openapi({
        description: "Only calls whose dialled number starts with it; with scope dialled_prefix, the prefix counted",
        example: "1800",
      }),
  };
  if (rule !== "short_call_share") return z.strictObject(velocity).openapi({ description: RULE_DESCRIPTIONS[rule] });
  return z
    .strictObject({
      ...velocity,
      min_calls: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .optional()
        .openapi({ description: "Calls that must have ended before the share counts" }),
      short_seconds: z
        .number()
        .int()
        .min(1)
        .max(600)
        .optional()
        .openapi({ description: "A call ending sooner than this after admission is short" }),
    })
    .openapi({ description: RULE_DESCRIPTIONS[rule] });
}

export const PutScreeningRulesSchema = z
  .strictObject({
    rules: z
      .strictObject(
        Object.fromEntries(RULE_NAMES.map((rule) => [rule, ruleInput(rule).optional()])) as unknown as Record<
          RuleName,
          z.ZodOptional<z.ZodType>
        >,
      )
      .openapi({ description: "The rules to set; a field left out takes its default, a rule left out returns to its defaults" }),
  })
  .superRefine((body, ctx) => {
    for (const [rule, setting] of Object.entries(
      body.rules as Record<string, { action?: string; divert_destination_id?: string | null }>,
    )) {
      if (setting?.action === "divert" && !setting.divert_destination_id) {
        ctx.addIssue({
          code: "custom",
          path: ["rules", rule, "divert_destination_id"],
          message: "divert_destination_id is required when action is 'divert'",
        });
      }
    }
  })
  .openapi("PutScreeningRules");
export type PutScreeningRules = { rules: Partial<Record<RuleName, Record<string, unknown>>> };

const RuleSettingSchema = z
  .object({
    action,
    scope: VelocityScope.optional(),
    threshold: z.number().int().optional(),
    prefix: z.string().optional(),
    min_calls: z.number().int().optional(),
    short_seconds: z.number().int().optional(),
    divert_destination_id: z.uuid().optional(),
    description: z.string(),
  })
  .openapi("ScreeningRuleSetting");

export const ScreeningRulesSchema = z
  .object({
    rules: z.object(Object.fromEntries(RULE_NAMES.map((rule) => [rule, RuleSettingSchema])) as Record<RuleName, typeof RuleSettingSchema>),
    updated_at: ts().nullable().openapi({ description: "When the account last changed them; null: the defaults throughout" }),
  })
  .openapi("ScreeningRules");

export const ruleDescription = (rule: RuleName) => RULE_DESCRIPTIONS[rule];
export const ruleDefaults = (rule: RuleName) => RULE_DEFAULTS[rule];

// ---- Do-not-originate ----

/** A number in E.164 through libphonenumber-js (read as international: +, 00, 011 or the country code first), or null. */
export function dnoNumber(raw: string): string | null {
  const trimmed = raw.trim().replace(/[\s().-]/g, "");
  const international = trimmed.startsWith("+") ? trimmed.slice(1) : trimmed.replace(/^(00|011)(?=[1-9])/, "");
  if (!/^[1-9][0-9]{5,16}$/.test(international)) return null;
  const parsed = parsePhoneNumberFromString(`+${international}`);
  return parsed?.isValid() ? parsed.number : null;
}

const dnoInput = z.string().max(40).openapi({ example: "+14155550100" });
const label = z.string().trim().max(200).nullable().optional();

export const AddDoNotOriginateSchema = z
  .union([
    z.strictObject({ number: dnoInput, label }),
    z.strictObject({ numbers: z.array(dnoInput).min(1).max(MAX_DNO_PER_REQUEST), label }),
  ])
  .superRefine((body, ctx) => {
    const [numbers, path] = "numbers" in body ? [body.numbers, ["numbers"]] : [[body.number], ["number"]];
    numbers.forEach((number, i) => {
      if (dnoNumber(number) === null) {
        ctx.addIssue({
          code: "custom",
          path: "numbers" in body ? [...path, i] : path,
          message: `${number} is not a valid phone number in international form`,
        });
      }
    });
  })
  .openapi("AddDoNotOriginate", {
    description: `One number, or up to ${MAX_DNO_PER_REQUEST} in numbers; each must be a valid number in international form`,
  });
export type AddDoNotOriginate = z.infer<typeof AddDoNotOriginateSchema>;

export const DoNotOriginateSchema = z
  .object({
    id: z.uuid(),
    number: z.string().openapi({ example: "+14155550100" }),
    label: z.string().nullable(),
    created_at: ts(),
  })
  .openapi("DoNotOriginateNumber");

export const DoNotOriginateListSchema = pageOf(DoNotOriginateSchema, "DoNotOriginateList");
export const DoNotOriginateQuery = pageQuery(WIDE_PAGE);
export const DoNotOriginateIdParam = z.object({ entry_id: z.uuid().openapi({ param: { name: "entry_id", in: "path" } }) });

export const AddedDoNotOriginateSchema = z
  .object({
    added: z.number().int().openapi({ description: "Numbers new to the list" }),
    already_listed: z.number().int(),
    items: z.array(DoNotOriginateSchema).openapi({ description: "The numbers added" }),
  })
  .openapi("AddedDoNotOriginate");

// ---- Stats ----

export const ScreeningStatsSchema = z
  .object({
    rules: z.array(
      z.object({
        rule: z.enum(RULE_NAMES as [RuleName, ...RuleName[]]),
        refused: z.number().int(),
        diverted: z.number().int(),
        flagged: z.number().int(),
        last_at: ts().nullable().openapi({ description: "The last call the rule matched" }),
      }),
    ),
  })
  .openapi("ScreeningStats", { description: "Calls each rule matched since the account's ledger began counting, by the rule's action" });
