// Alert rules (spec: "Alert rules and webhook") and the connected channels they deliver to
// (our extension: /customer/alert-channels).
import { z } from "@hono/zod-openapi";
import { RECOMMENDATIONS } from "../../schema/enums.ts";
import { screeningConditionFields } from "./screening-conditions.ts";

export const ALERT_TRIGGERS = ["fraud", "quality", "screening"] as const;
export const ALERT_CHANNEL_KINDS = ["slack", "webhook"] as const;
export const MAX_ALERT_RULES = 50;
export const MAX_ALERT_CHANNELS = 20;
export const MAX_RECIPIENTS = 20;
export const DEFAULT_ALERT_MIN_PROBABILITY = 70;
export const NO_DELIVERY = "the rule needs at least one delivery: email or a connected channel";

const timestamp = z.string().openapi({ format: "date-time" });

export const AlertRuleSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: "High-risk calls to the NOC" }),
    enabled: z.boolean(),
    min_probability: z.number().int().openapi({ example: DEFAULT_ALERT_MIN_PROBABILITY }),
    categories: z.array(z.string()).nullable(),
    recommendations: z.array(z.string()).nullable(),
    recipients: z.array(z.string()).nullable(),
    throttle_minutes: z.number().int(),
    include_transcript: z.boolean(),
    include_sip_log: z.boolean(),
    include_pcap: z.boolean(),
    include_recording: z.boolean(),
    trigger: z.enum(ALERT_TRIGGERS).openapi({
      description:
        "fraud: a verdict over min_probability; quality: a call whose MOS is at or below max_mos; screening: a call " +
        "admission's screening flagged (or whose caller ID was not verified), when its record arrives, before any verdict " +
        "(identity_statuses and screening_rules narrow it; min_probability does not apply)",
    }),
    max_mos: z.number().nullable(),
    ...screeningConditionFields,
    channel_ids: z.array(z.uuid()).nullable(),
    email_enabled: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("AlertRule");

const category = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, "categories are snake_case keys such as credit_card_scam")
  .max(64);
const mos = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, "max_mos must be a number"),
  ])
  .transform((v) => Number(v))
  .pipe(z.number().min(1, "max_mos must be between 1 and 5").max(5, "max_mos must be between 1 and 5"))
  .openapi({ type: "number", description: "MOS 1-5 (a number or a numeric string)", example: 3.5 });

const ruleFields = {
  name: z.string().trim().min(1, "name must not be empty").max(200),
  enabled: z.boolean(),
  min_probability: z.number().int().min(0).max(100),
  categories: z.array(category).max(50).nullable(),
  recommendations: z.array(z.enum(RECOMMENDATIONS)).max(RECOMMENDATIONS.length).nullable(),
  recipients: z.array(z.email()).max(MAX_RECIPIENTS).nullable(),
  throttle_minutes: z
    .number()
    .int()
    .min(0)
    .max(10_080)
    .openapi({ description: "At most one alert per rule in this many minutes (0: no limit)" }),
  include_transcript: z.boolean(),
  include_sip_log: z.boolean(),
  include_pcap: z.boolean(),
  include_recording: z.boolean(),
  trigger: z.enum(ALERT_TRIGGERS),
  max_mos: mos.nullable(),
  ...screeningConditionFields,
  channel_ids: z.array(z.uuid()).max(MAX_ALERT_CHANNELS).nullable(),
  email_enabled: z.boolean(),
};

export const CreateAlertRuleSchema = z
  .object({
    ...ruleFields,
    enabled: ruleFields.enabled.default(true),
    min_probability: ruleFields.min_probability.default(DEFAULT_ALERT_MIN_PROBABILITY),
    categories: ruleFields.categories.optional(),
    recommendations: ruleFields.recommendations.optional(),
    recipients: ruleFields.recipients.optional(),
    throttle_minutes: ruleFields.throttle_minutes.default(0),
    include_transcript: ruleFields.include_transcript.default(false),
    include_sip_log: ruleFields.include_sip_log.default(false),
    include_pcap: ruleFields.include_pcap.default(false),
    include_recording: ruleFields.include_recording.default(false),
    trigger: ruleFields.trigger.default("fraud"),
    max_mos: ruleFields.max_mos.optional(),
    identity_statuses: ruleFields.identity_statuses.optional(),
    screening_rules: ruleFields.screening_rules.optional(),
    channel_ids: ruleFields.channel_ids.optional(),
    email_enabled: ruleFields.email_enabled.default(true),
  })
  .openapi("CreateAlertRule");

export const UpdateAlertRuleSchema = z.object(ruleFields).partial().openapi("UpdateAlertRule");

const ChannelTestSchema = z.object({
  id: z.uuid(),
  kind: z.string(),
  label: z.string().nullable(),
  sent: z.boolean(),
  error: z.string().nullable().optional(),
  latency_ms: z.number().int().default(0),
});

export const AlertTestResultSchema = z
  .object({
    sent: z.boolean().openapi({ description: "The test e-mail was sent" }),
    error: z.string().nullable().optional(),
    latency_ms: z.number().int(),
    recipients: z.array(z.string()),
    channels: z.array(ChannelTestSchema).default([]),
  })
  .openapi("AlertTestResult");

export const AlertRuleIdParam = z.object({ rule_id: z.uuid().openapi({ param: { name: "rule_id", in: "path" } }) });

export type CreateAlertRule = z.infer<typeof CreateAlertRuleSchema>;
export type UpdateAlertRule = z.infer<typeof UpdateAlertRuleSchema>;

// ---------------------------------------------------------------------------------------------
// Channels (our extension)

export const AlertChannelSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(ALERT_CHANNEL_KINDS).openapi({ description: "slack: a Slack incoming webhook (Block Kit message); webhook: a JSON POST" }),
    label: z.string().nullable(),
    enabled: z.boolean(),
    url_host: z
      .string()
      .nullable()
      .openapi({ description: "Host of the stored URL; the URL itself is write-only", example: "hooks.slack.com" }),
    url_set: z.boolean().openapi({ description: "A URL is stored (it is never returned: it carries the channel's token)" }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("AlertChannel");

const channelUrl = z
  .string()
  .trim()
  .max(2048)
  .openapi({ description: "Write-only: https URL the channel posts to", example: "https://hooks.slack.com/services/T000/B000/XXXX" });

export const CreateAlertChannelSchema = z
  .object({
    kind: z.enum(ALERT_CHANNEL_KINDS),
    label: z.string().trim().max(200).nullable().optional(),
    url: channelUrl,
    enabled: z.boolean().default(true),
  })
  .openapi("CreateAlertChannel");

export const UpdateAlertChannelSchema = z
  .object({ label: z.string().trim().max(200).nullable().optional(), url: channelUrl.optional(), enabled: z.boolean().optional() })
  .openapi("UpdateAlertChannel");

export const ChannelTestResultSchema = ChannelTestSchema.openapi("AlertChannelTestResult");

export const ChannelIdParam = z.object({ channel_id: z.uuid().openapi({ param: { name: "channel_id", in: "path" } }) });

export type CreateAlertChannel = z.infer<typeof CreateAlertChannelSchema>;
export type UpdateAlertChannel = z.infer<typeof UpdateAlertChannelSchema>;
