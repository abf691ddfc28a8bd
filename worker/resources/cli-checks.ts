// Caller-ID (CLI) checks, the numbers people host for them, and schedules that repeat a check or a
// route test on a destination (our extension of the published API; results as known-values.md has them).
import { z } from "@hono/zod-openapi";
import { NARROW_PAGE, pageOf, pageQuery } from "../lib/pagination.ts";

const ts = () => z.string().openapi({ format: "date-time" });
const usd = () => z.number().openapi({ description: "US dollars", example: 0.05 });

export const CLI_RESULTS = ["match", "modified", "withheld", "missing", "not_received"] as const;
export const CLI_CHANGES = ["format", "prefix", "digits"] as const;

const country = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{2}$/, "country must be an ISO 3166-1 alpha-2 code such as GB")
  .openapi({ example: "GB" });

const e164 = (example: string) =>
  z
    .string()
    .trim()
    .regex(/^\+?[1-9][0-9]{5,14}$/, "must be a number in international form, such as +442079460000")
    .openapi({ example });

export const CoverageSchema = z
  .object({
    countries: z.array(
      z.object({
        country: z.string().openapi({ example: "GB" }),
        numbers: z.number().int().openapi({ description: "Numbers that can take a check now" }),
        platform_numbers: z.number().int(),
        hosted_numbers: z.number().int().openapi({ description: "Live numbers hosted by the platform's users" }),
      }),
    ),
    fee_usd: usd().openapi({ description: "The fee of one check, whatever its result; the call's minutes are billed as any call" }),
    hosted_share_percent: z.number().openapi({ description: "What a hosted number's holder earns of each check it answers" }),
  })
  .openapi("CliCoverage");

export const CliCheckSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(["placing", "completed", "failed"]).openapi({
      description: "placing until the result is known; failed: the platform could not place the call (fee refunded, error says why)",
    }),
    result: z.enum(CLI_RESULTS).nullable().openapi({
      description:
        "match, modified (change says how), withheld (privacy asked for), missing (no number arrived), not_received (the call never reached the number)",
    }),
    change: z.enum(CLI_CHANGES).nullable().openapi({ description: "For modified: format, prefix or digits" }),
    destination_id: z.uuid(),
    country: z.string(),
    sent: z.object({ caller_id: z.string().openapi({ example: "+14155550100" }) }),
    received: z
      .object({
        from: z.string().nullable().openapi({ description: "From's user part as it arrived" }),
        display_name: z.string().nullable(),
        asserted: z.string().nullable().openapi({ description: "P-Asserted-Identity's user part" }),
        privacy: z.array(z.string()).openapi({ description: "The Privacy header's values" }),
        identity_present: z.boolean().openapi({ description: "Whether an Identity header (STIR/SHAKEN) arrived" }),
        arrived_at: ts(),
      })
      .nullable()
      .openapi({ description: "What the number saw; null until (unless) the call arrived" }),
    number_called: z.string().openapi({ description: "The platform's number (or a hosted one, shown masked) the check called" }),
    hosted: z.boolean().openapi({ description: "Whether a user's hosted number took the check" }),
    post_dial_delay_ms: z.number().int().nullable(),
    answer_delay_ms: z.number().int().nullable(),
    mos: z.object({
      sent: z.number().nullable().openapi({ description: "The platform's sample as the number heard it" }),
      received: z.number().nullable().openapi({ description: "The number's tone as the platform heard it" }),
    }),
    sip_code: z.number().int().nullable(),
    sip_reason: z.string().nullable(),
    error: z.string().nullable(),
    fee_usd: usd(),
    test_call_id: z.uuid(),
    call_id: z.uuid().nullable().openapi({ description: "The call record of the check's call (origin test)" }),
    schedule_id: z.uuid().nullable(),
    created_by: z.string().nullable(),
    created_at: ts(),
    completed_at: ts().nullable(),
  })
  .openapi("CliCheck");

export const CreateCliCheckSchema = z
  .object({
    destination_id: z.uuid().openapi({ description: "The route to test: one of the account's destinations" }),
    country,
    caller_id: e164("+14155550100")
      .optional()
      .openapi({ description: "The caller ID to prove: one of the account's verified numbers; left out: the platform's own" }),
  })
  .openapi("CreateCliCheck");

export const CliCheckListQuery = pageQuery(NARROW_PAGE).extend({
  destination_id: z.uuid().optional(),
  schedule_id: z.uuid().optional(),
});
export const CliCheckListSchema = pageOf(CliCheckSchema, "CliCheckList");
export const CliCheckIdParam = z.object({ check_id: z.uuid().openapi({ param: { name: "check_id", in: "path" } }) });

export const HostedNumberSchema = z
  .object({
    id: z.uuid(),
    number: z.string(),
    country: z.string(),
    reach_by: z.string().nullable(),
    forward_to: z
      .string()
      .openapi({ description: "The SIP URI to point the number at", example: "sip:+442079460000@cli.example.net:5090" }),
    status: z.enum(["pending", "live", "down"]).openapi({
      description: "pending until a call to it reaches the platform; down after checks it did not receive (it leaves coverage)",
    }),
    awaiting_test_call_until: ts().nullable().openapi({ description: "After test_hosted_number: call the number before then" }),
    confirmed_at: ts().nullable(),
    last_answered_at: ts().nullable(),
    checks_answered: z.number().int(),
    earnings_usd: usd(),
    created_at: ts(),
  })
  .openapi("HostedNumber");

export const CreateHostedNumberSchema = z
  .object({
    number: e164("+442079460123"),
    country: country.optional().openapi({ description: "Left out: the number's own country" }),
    reach_by: z.string().trim().min(1).max(300).optional().openapi({
      description: "How calls to it will reach the platform: a SIP URI or a forwarding note",
      example: "forwarded by my provider",
    }),
  })
  .openapi("CreateHostedNumber");

export const HostedNumberIdParam = z.object({ hosted_number_id: z.uuid().openapi({ param: { name: "hosted_number_id", in: "path" } }) });
export const HostedNumberListSchema = pageOf(HostedNumberSchema, "HostedNumberList");

export const ScheduleSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(["cli_check", "test_call"]),
    destination_id: z.uuid(),
    country: z.string().nullable().openapi({ description: "cli_check: the country called" }),
    caller_id: z.string().nullable(),
    number: z.string().nullable().openapi({ description: "test_call: the number called" }),
    every: z.enum(["hourly", "daily"]),
    enabled: z.boolean(),
    next_run_at: ts(),
    last_run_id: z.uuid().nullable().openapi({ description: "The latest run's CLI check or test call" }),
    last_run_at: ts().nullable(),
    last_outcome: z.string().nullable().openapi({ description: "The latest run's result (a CLI result, or a test call's end)" }),
    previous_outcome: z.string().nullable(),
    created_at: ts(),
  })
  .openapi("CliSchedule");

export const CreateScheduleSchema = z
  .object({
    kind: z.enum(["cli_check", "test_call"]),
    destination_id: z.uuid(),
    every: z.enum(["hourly", "daily"]),
    country: country.optional().openapi({ description: "Required for cli_check" }),
    caller_id: e164("+14155550100").optional(),
    number: z
      .string()
      .trim()
      .regex(/^\+?[0-9*#]{2,32}$/, "number must be 2 to 32 digits, * or #, with an optional leading +")
      .optional()
      .openapi({ description: "Required for test_call" }),
  })
  .openapi("CreateCliSchedule");

export const UpdateScheduleSchema = z
  .object({ every: z.enum(["hourly", "daily"]).optional(), enabled: z.boolean().optional() })
  .openapi("UpdateCliSchedule");
export const ScheduleIdParam = z.object({ schedule_id: z.uuid().openapi({ param: { name: "schedule_id", in: "path" } }) });
export const ScheduleListSchema = pageOf(ScheduleSchema, "CliScheduleList");

export type CreateCliCheck = z.infer<typeof CreateCliCheckSchema>;
export type CreateHostedNumber = z.infer<typeof CreateHostedNumberSchema>;
export type CreateSchedule = z.infer<typeof CreateScheduleSchema>;
export type UpdateSchedule = z.infer<typeof UpdateScheduleSchema>;
