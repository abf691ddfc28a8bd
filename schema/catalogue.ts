// Public catalogue: the plan ladder and the AI tiers. Seeded by migration, read by everyone.
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, micros } from "./columns.ts";

export const plans = sqliteTable("plans", {
  code: text("code").primaryKey(),
  name: text("name").notNull(),
  monthlyFeeMicros: micros("monthly_fee_micros"),
  ports: integer("ports").notNull(),
  /** null: no minutes included (pay as you go). */
  includedMinutes: integer("included_minutes"),
  perMinuteRateMicros: micros("per_minute_rate_micros"),
  minBillableSeconds: integer("min_billable_seconds").notNull(),
  active: bool("active").notNull().default(true),
  description: text("description"),
  sortOrder: integer("sort_order").notNull().default(0),
});

export const aiTiers = sqliteTable("ai_tiers", {
  mode: text("mode").primaryKey(),
  analysisFeeMicros: micros("analysis_fee_micros"),
  /** Which provider and model serve the tier: internal, never exposed by the API. */
  provider: text("provider").notNull(),
  model: text("model").notNull(),
  active: bool("active").notNull().default(true),
  sortOrder: integer("sort_order").notNull().default(0),
});
