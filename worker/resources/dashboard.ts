import { z } from "@hono/zod-openapi";
import { utcInstant } from "./call-list.ts";
import { CallSchema } from "./calls.ts";

export const DashboardQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(366)
    .default(30)
    .openapi({ description: "UTC calendar days counted, today included (1-366)", example: 30 }),
});

const instant = (name: string, description: string) =>
  z
    .union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], {
      error: `${name} must be an ISO 8601 timestamp (2026-01-31T00:00:00Z) or date (2026-01-31)`,
    })
    .transform(utcInstant)
    .optional()
    .openapi({ description, example: "2026-01-31T00:00:00Z" });

export const StatsQuery = z.object({
  from: instant("from", "Calls started (and money posted) at or after this instant; a date alone is its midnight UTC"),
  to: instant("to", "Calls started (and money posted) before this instant"),
});

const date = z.string().openapi({ description: "UTC calendar day", example: "2026-01-31" });

export const DashboardSchema = z
  .object({
    days: z.number().int().openapi({ example: 30 }),
    from: z.string().openapi({ format: "date-time", description: "Midnight UTC of the first day counted" }),
    to: z.string().openapi({ format: "date-time" }),
    calls_today: z.number().int(),
    calls_period: z.number().int(),
    minutes_period: z.number().openapi({ description: "Billed minutes of the calls started in the period" }),
    spend_period: z.number().openapi({ description: "USD charged in the period (calls, analysis fees, plan fees), less refunds" }),
    high_risk_pct: z.number().openapi({ description: "Share of the period's analysed calls with probability >= 70, in percent" }),
    risk_distribution: z.array(z.object({ bucket: z.enum(["0-29", "30-69", "70-100"]), count: z.number().int() }).openapi("RiskBucket")),
    calls_per_day: z.array(z.object({ date, calls: z.number().int(), high_risk: z.number().int() }).openapi("CallsPerDay")),
    spend_per_day: z.array(z.object({ date, spend: z.number() }).openapi("SpendPerDay")),
    calls_by_country: z.array(
      z
        .object({
          code: z.string().nullable().openapi({ description: "ISO 3166-1 alpha-2 (iso true), +calling code (iso false) or null" }),
          name: z.string().openapi({ example: "United Kingdom" }),
          iso: z.boolean(),
          count: z.number().int(),
        })
        .openapi("CallsByCountry"),
    ),
    recent_high_risk: z.array(CallSchema).openapi({ description: "The period's calls with probability >= 70, newest first (10)" }),
    balance: z.number(),
    plan: z
      .object({
        code: z.string(),
        name: z.string(),
        ports: z.number().int(),
        included_minutes: z.number().int().nullable(),
        renews_at: z.string().nullable().openapi({ format: "date-time" }),
      })
      .openapi("DashboardPlan"),
    cycle_minutes_used: z.number(),
    active_calls: z.number().int(),
  })
  .openapi("Dashboard");

export const StatsSchema = z
  .object({
    from: z.string().optional().openapi({ format: "date-time" }),
    to: z.string().optional().openapi({ format: "date-time" }),
    calls: z.number().int(),
    answered_calls: z.number().int(),
    minutes: z.number().openapi({ description: "Billed minutes" }),
    spend: z.number().openapi({ description: "USD charged, less refunds" }),
    by_category: z.record(z.string(), z.number().int()).openapi({ example: { robocall: 3, legitimate: 10 } }),
    by_recommendation: z.record(z.string(), z.number().int()).openapi({ example: { block: 3, allow: 10 } }),
    avg_probability: z.number().nullable().openapi({ description: "Over analysed calls; null when none" }),
  })
  .openapi("Stats");
