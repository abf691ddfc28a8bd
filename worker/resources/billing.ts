import { z } from "@hono/zod-openapi";
import { pageOf } from "../lib/pagination.ts";

export const BalanceSchema = z
  .object({
    balance: z.number().openapi({ description: "USD", example: 5 }),
    plan: z.string().openapi({ example: "payg" }),
    plan_name: z.string().openapi({ example: "Pay as you go" }),
    ports: z.number().int().openapi({ example: 2 }),
    active_calls: z.number().int().openapi({ example: 0 }),
    cycle_minutes_used: z.number().openapi({ example: 0 }),
    included_minutes: z.number().int().nullable().openapi({ example: null }),
    per_minute_rate: z.number().openapi({ example: 0.012 }),
    plan_renews_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("Balance");

export const LedgerEntrySchema = z
  .object({
    id: z.uuid().openapi({ example: "5c1e0f4a-2b7d-5e3a-9c1f-0a1b2c3d4e5f" }),
    type: z.string().openapi({ description: "credit, call, analysis, plan_fee, topup, refund", example: "credit" }),
    amount: z.number().openapi({ description: "USD; negative for charges", example: 5 }),
    balance_after: z.number().openapi({ example: 5 }),
    call_id: z.uuid().nullable(),
    description: z.string().nullable().openapi({ example: "Welcome credit" }),
    waived_amount: z.number().openapi({ description: "USD waived by the pilot", example: 0 }),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("LedgerEntry");

export const LedgerListSchema = pageOf(LedgerEntrySchema, "LedgerList");

export const ChoosePlanSchema = z
  .object({ plan_code: z.string().min(1).max(64).openapi({ description: "A plan of GET /plans", example: "starter" }) })
  .openapi("ChoosePlan");

export const PaymentsConfigSchema = z
  .object({
    enabled: z.boolean(),
    publishable_key: z.string().openapi({ example: "pk_test_..." }),
    currency: z.string().openapi({ example: "usd" }),
    preset_amounts: z.array(z.number().int()).openapi({ example: [25, 50, 100, 250] }),
    min_custom_amount: z.number().int().openapi({ example: 10 }),
  })
  .openapi("PaymentsConfig");

export const CheckoutRequestSchema = z
  .object({
    amount: z
      .union([z.number(), z.string().max(32)])
      .openapi({ description: "US dollars, at least 10, whole cents (a preset: 25, 50, 100, 250)", example: 50 }),
  })
  .openapi("CheckoutRequest");

export const CheckoutSessionSchema = z
  .object({
    session_id: z.string().openapi({ example: "cs_test_a1b2c3" }),
    url: z.string().openapi({ description: "Where the browser goes to pay", example: "https://checkout.stripe.com/c/pay/cs_test_a1b2c3" }),
  })
  .openapi("CheckoutSession");

export const PaymentEventReceiptSchema = z
  .object({ received: z.literal(true), duplicate: z.boolean().openapi({ description: "true: this event id was handled before" }) })
  .openapi("PaymentEventReceipt");
