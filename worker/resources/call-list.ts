// The calls list's shapes (GET /calls and the term counts): its page, sorts, filters and their
// bounds, beside the call's own schemas (./calls.ts).
import { z } from "@hono/zod-openapi";
import { pageOf, pageQuery, WIDE_PAGE } from "../lib/pagination.ts";
import { CALL_ORIGINS, CALL_STATUSES, RECOMMENDATIONS } from "../../schema/enums.ts";
import { Attestation, IdentityStatus } from "../../schema/screening.ts";
import { CallSchema } from "./calls.ts";

export const CallListSchema = pageOf(CallSchema, "CallList");

/** Sort keys of GET /calls: a leading "-" is descending; calls without the value come last either way. */
export const CALL_SORTS = ["-started_at", "started_at", "-probability", "probability", "-duration_sec", "duration_sec"] as const;
export type CallSort = (typeof CALL_SORTS)[number];

/** At most this many `keyword` values in one query. */
export const MAX_KEYWORD_FILTERS = 10;

const oneOf = (name: string, values: readonly string[]) => `${name} must be one of ${values.join(", ")}`;

/**
 * A timestamp filter: ISO 8601 with a zone (Z or an offset), without one (read as UTC), or a
 * date alone (its midnight UTC); handed on as the stored form (UTC with milliseconds).
 */
const timestampFilter = (name: string, description: string) =>
  z
    .union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], {
      error: `${name} must be an ISO 8601 timestamp (2026-01-31T00:00:00Z) or date (2026-01-31)`,
    })
    .transform(utcInstant)
    .optional()
    .openapi({ description, example: "2026-01-31T00:00:00Z" });

export function utcInstant(value: string): string {
  if (!value.includes("T")) return `${value}T00:00:00.000Z`;
  const zoned = /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value);
  return new Date(zoned ? value : `${value}Z`).toISOString();
}

/** A yes/no filter: true or false (1 and 0 too); anything else names the parameter. */
const booleanFilter = (name: string, description: string) =>
  z
    .enum(["true", "false", "1", "0"], { error: `${name} must be true or false` })
    .transform((v) => v === "true" || v === "1")
    .optional()
    .openapi({ description });

/** Free text compared whole; empty means no filter. */
const textFilter = (max: number, description: string) => z.string().trim().max(max).optional().openapi({ description });

const keyName = (name: string, description: string) =>
  z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/, `${name} must be a lower-case key of letters, digits and _ (e.g. tech_support_scam)`)
    .optional()
    .openapi({ description });

export const CallListQuery = pageQuery(WIDE_PAGE)
  .extend({
    status: z
      .enum(CALL_STATUSES, { error: oneOf("status", CALL_STATUSES) })
      .optional()
      .openapi({ description: "ringing, active, completed, failed or rejected" }),
    analysis_status: keyName("analysis_status", "The analysis pipeline's state of the call (none, pending, ...)"),
    from: timestampFilter("from", "Calls started at or after this instant"),
    to: timestampFilter("to", "Calls started before this instant (a date alone: before that day begins)"),
    min_probability: z.coerce
      .number({ error: "min_probability must be an integer from 0 to 100" })
      .int({ error: "min_probability must be an integer from 0 to 100" })
      .min(0, { error: "min_probability must be an integer from 0 to 100" })
      .max(100, { error: "min_probability must be an integer from 0 to 100" })
      .optional()
      .openapi({ description: "Calls with a verdict of at least this fraud probability (0-100)", example: 70 }),
    external_id: textFilter(200, "The external id the call carried, exactly"),
    origin: z
      .enum(CALL_ORIGINS, { error: "origin must be 'sip', 'dialer' or 'test'" })
      .optional()
      .openapi({ description: "sip, dialer or test" }),
    sip_call_id: textFilter(512, "The SIP Call-ID, exactly"),
    sampled: booleanFilter("sampled", "Calls the sampling policy took (true) or left out (false)"),
    q: textFilter(200, "Text found in the caller (ANI), the dialed number, the transcript or its summary"),
    category: keyName("category", "The verdict's category, e.g. credit_card_scam"),
    recommendation: z
      .enum(RECOMMENDATIONS, { error: oneOf("recommendation", RECOMMENDATIONS) })
      .optional()
      .openapi({ description: "block, review or allow" }),
    destination_id: z.uuid({ error: "destination_id must be a UUID" }).optional().openapi({ description: "The destination routed to" }),
    route_alert: booleanFilter("route_alert", "Calls whose verdict raised a route alert (true) or not (false)"),
    entity: textFilter(200, "The entity the caller claimed (as GET /calls/entities lists it), exactly"),
    sub_customer: textFilter(200, "The sub-customer (whitelist entry label or dial prefix), exactly"),
    identity_status: z
      .enum(IdentityStatus.options, { error: oneOf("identity_status", IdentityStatus.options) })
      .optional()
      .openapi({ description: "The caller ID's verification at admission: verified, failed or absent" }),
    attestation: z
      .enum(Attestation.options, { error: oneOf("attestation", Attestation.options) })
      .optional()
      .openapi({ description: "The STIR/SHAKEN attestation the call claimed: A, B or C" }),
    keyword: z
      .preprocess(
        (v) => (typeof v === "string" ? [v] : v),
        z.array(z.string().trim().toLowerCase().min(1).max(100)).max(MAX_KEYWORD_FILTERS, {
          error: `at most ${MAX_KEYWORD_FILTERS} keyword values`,
        }),
      )
      .optional()
      .openapi({ description: "A verdict keyword; repeat it to ask for calls having every one given" }),
    sort: z
      .enum(CALL_SORTS, { error: oneOf("sort", CALL_SORTS) })
      .default("-started_at")
      .openapi({ description: "A leading - sorts descending; calls without the value (no verdict, not ended) come last" }),
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, { error: "to must be later than from", path: ["to"] });

export type CallListInput = z.infer<typeof CallListQuery>;

export const TermCountQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .openapi({ description: "UTC calendar days counted, today included (1-365)", example: 30 }),
  limit: z.coerce.number().int().min(1).max(50).default(12).openapi({ description: "The most frequent first, 1-50", example: 12 }),
});
export type TermCountInput = z.infer<typeof TermCountQuery>;

export const EntityCountSchema = z.object({ entity: z.string(), count: z.number().int() }).openapi("EntityCount");
export const KeywordCountSchema = z.object({ keyword: z.string(), count: z.number().int() }).openapi("KeywordCount");
