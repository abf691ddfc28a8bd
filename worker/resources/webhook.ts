// The account webhook (spec: "Alert rules and webhook", Events rule 1), its delivery log (ours)
// and the events it carries (documented in the OpenAPI document's webhooks section).
import { z } from "@hono/zod-openapi";
import { pageOf, pageQuery } from "../lib/pagination.ts";
import { SCREENING_ACTIONS, VELOCITY_RULES, VelocityScope } from "../../schema/screening.ts";
import { AniControlSchema } from "./automation.ts";
import { CallScreeningSchema, screeningFields } from "./calls.ts";

export const WEBHOOK_EVENT_KINDS = [
  "webhook.test",
  "call.analyzed",
  "call.route_alert",
  "automation.number_controlled",
  "schedule.outcome_changed",
  "screening.breach",
] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];
export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

const timestamp = z.string().openapi({ format: "date-time" });

export const WebhookSchema = z
  .object({
    url: z.string().nullable().openapi({ example: "https://hooks.carrier.example/call-shield" }),
    secret_set: z.boolean().openapi({ description: "A signing secret is stored (it is never returned)" }),
  })
  .openapi("Webhook");

export const PutWebhookSchema = z
  .object({
    url: z.string().trim().max(2048).nullable().optional().openapi({
      description: "https URL to a public address; null removes the webhook; absent leaves it",
      example: "https://hooks.carrier.example/call-shield",
    }),
    secret: z.string().min(16, "secret must be at least 16 characters").max(512).nullable().optional().openapi({
      description:
        "Write-only signing secret: whsec_<base64> (Standard Webhooks form; the decoded bytes are the HMAC key) or any other string (its UTF-8 bytes are the key); null removes it; absent leaves it",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
  })
  .openapi("PutWebhook");

export const WebhookTestResultSchema = z
  .object({
    delivered: z.boolean(),
    status_code: z.number().int().nullable().optional(),
    error: z.string().nullable().optional().openapi({ example: "webhook_not_configured" }),
    latency_ms: z.number().int(),
  })
  .openapi("WebhookTestResult");

export const WebhookAttemptSchema = z
  .object({
    attempt: z.number().int(),
    url: z.string().nullable(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    latency_ms: z.number().int().nullable(),
    created_at: timestamp,
  })
  .openapi("WebhookAttempt");

export const WebhookDeliverySchema = z
  .object({
    id: z.uuid(),
    event_id: z.string().openapi({ description: "The webhook-id header; receivers de-duplicate retries by it" }),
    kind: z.enum(WEBHOOK_EVENT_KINDS),
    call_id: z.uuid().nullable(),
    url: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    status_code: z.number().int().nullable(),
    attempts: z.number().int(),
    error: z.string().nullable(),
    latency_ms: z.number().int().nullable(),
    next_attempt_at: timestamp.nullable(),
    created_at: timestamp,
    delivered_at: timestamp.nullable(),
    attempt_log: z
      .array(WebhookAttemptSchema)
      .optional()
      .openapi({ description: "Every attempt, oldest first (in the single-delivery answer)" }),
  })
  .openapi("WebhookDelivery");

export const WebhookDeliveryListSchema = pageOf(WebhookDeliverySchema, "WebhookDeliveryList");

export const DeliveriesQuery = pageQuery();

export const DeliveryIdParam = z.object({ delivery_id: z.uuid().openapi({ param: { name: "delivery_id", in: "path" } }) });

// ---------------------------------------------------------------------------------------------
// Event payloads: {type, timestamp, data}

const CallRefSchema = z
  .object({
    id: z.uuid(),
    ani: z.string().nullable(),
    dialed: z.string().nullable(),
    started_at: timestamp,
    destination_id: z.uuid().nullable(),
    attestation: screeningFields.attestation,
    identity_status: screeningFields.identity_status,
    identity_reason: screeningFields.identity_reason,
  })
  .openapi("WebhookCall");

const VerdictSchema = z
  .object({
    analysis_id: z.string(),
    title: z.string().nullable(),
    probability: z.number().int(),
    category: z.string(),
    recommendation: z.string(),
    entity: z.string().nullable(),
    summary: z.string().nullable(),
    red_flags: z.array(z.string()).nullable(),
    keywords: z.array(z.string()).nullable(),
  })
  .openapi("WebhookVerdict");

const envelope = <K extends WebhookEventKind, D extends z.ZodType>(kind: K, data: D, name: string) =>
  z
    .object({
      type: z.literal(kind),
      timestamp: timestamp.openapi({ description: "When the event happened" }),
      data,
    })
    .openapi(name);

export const WebhookTestEventSchema = envelope("webhook.test", z.object({ account_id: z.uuid(), message: z.string() }), "WebhookTestEvent");
export const CallAnalyzedEventSchema = envelope(
  "call.analyzed",
  z.object({
    call: CallRefSchema,
    verdict: VerdictSchema,
    route_alert: z.record(z.string(), z.unknown()).nullable(),
    screening: CallScreeningSchema.nullable().openapi({
      description: "What screening found before answer; null when the call was not screened",
    }),
  }),
  "CallAnalyzedEvent",
);
export const CallRouteAlertEventSchema = envelope(
  "call.route_alert",
  z.object({ call: CallRefSchema, route_alert: z.record(z.string(), z.unknown()) }),
  "CallRouteAlertEvent",
);
export const NumberControlledEventSchema = envelope(
  "automation.number_controlled",
  z.object({ control: AniControlSchema, call_id: z.uuid().nullable() }),
  "NumberControlledEvent",
);

export const ScheduleOutcomeChangedEventSchema = envelope(
  "schedule.outcome_changed",
  z.object({
    schedule_id: z.uuid(),
    kind: z.enum(["cli_check", "test_call"]),
    destination_id: z.uuid(),
    previous_outcome: z.string(),
    outcome: z.string(),
    run_id: z.uuid().openapi({ description: "The CLI check or test call of the run that changed" }),
    detail: z.string(),
  }),
  "ScheduleOutcomeChangedEvent",
);

export const ScreeningBreachEventSchema = envelope(
  "screening.breach",
  z.object({
    rule: z.enum(VELOCITY_RULES),
    scope: VelocityScope,
    key: z.string().openapi({ description: "What was counted: the caller ID, the dialled prefix or the source address" }),
    action: z.enum(SCREENING_ACTIONS).openapi({ description: "What the rule did to the call that broke it" }),
    detail: z.string().openapi({ example: "31 calls in a minute from +14155550100" }),
    call_id: z.uuid().openapi({ description: "The call that broke the rule" }),
    at: timestamp,
  }),
  "ScreeningBreachEvent",
);

export type PutWebhook = z.infer<typeof PutWebhookSchema>;
