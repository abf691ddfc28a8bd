import { z } from "@hono/zod-openapi";

const ts = (description?: string) =>
  z.string().openapi({ format: "date-time", example: "2026-11-25T10:00:00.000Z", ...(description ? { description } : {}) });

export const PilotSchema = z
  .object({
    active: z.boolean().openapi({ example: true }),
    started_at: ts().nullable().optional(),
    ends_at: ts().nullable().optional(),
    days_left: z.number().int().openapi({ example: 14 }),
    minutes_limit: z.number().int().nullable().optional().openapi({ example: 300 }),
    minutes_used: z.number().openapi({ example: 0 }),
    exhausted: z.boolean().openapi({ example: false }),
    waived_total: z.number().openapi({ description: "USD waived so far", example: 0 }),
  })
  .openapi("Pilot");

const freeText = z.string().nullable().optional();

export const ProfileSchema = z
  .object({
    switch_vendor: freeText,
    expected_volume: freeText,
    contact_role: freeText,
    region: freeText,
    referral_source: freeText,
    phone: freeText,
    profile_completed_at: ts().nullable().optional(),
  })
  .openapi("Profile");

export const AccountSchema = z
  .object({
    id: z.uuid().openapi({ example: "019a6c1e-6f2b-7c3d-9e4f-0a1b2c3d4e5f" }),
    email: z.string().openapi({ example: "noc@carrier.example" }),
    company: z.string().nullable().openapi({ example: "Example Carrier Ltd" }),
    phone: z.string().nullable().optional(),
    tax_id: z.string().nullable().optional(),
    country: z.string().nullable().optional(),
    province: z.string().nullable().optional(),
    role: z.string().openapi({ description: "What this session may do: admin, owner or member", example: "owner" }),
    status: z.string().openapi({ description: "active or suspended", example: "active" }),
    must_change_password: z.boolean(),
    balance: z.number().openapi({ description: "USD", example: 5 }),
    plan_code: z.string().openapi({ example: "payg" }),
    ports: z.number().int().openapi({ example: 2 }),
    plan_started_at: ts().nullable(),
    plan_renews_at: ts().nullable(),
    cycle_minutes_used: z.number().openapi({ example: 0 }),
    webhook_url: z.string().nullable(),
    created_at: ts(),
    twofa_enabled: z.boolean(),
    dialer_enabled: z.boolean().optional(),
    ai_mode: z.string().openapi({ example: "power" }),
    data_region: z.string().openapi({ example: "ca" }),
    media_region: z.string().openapi({ example: "ca" }),
    impersonated_by: z.string().nullable().optional(),
    pilot: PilotSchema.nullable().optional(),
    profile: ProfileSchema.nullable().optional(),
    terms_version: z.string().nullable().optional(),
    terms_current_version: z.string().optional(),
    user: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable() }).optional().openapi({
      description:
        "Our extension: the person signed in (the account's `email` is its owner's; a member sees their own here). Absent outside a session.",
    }),
  })
  .openapi("Account");

export const SessionCustomerSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    company: z.string().nullable(),
    phone: z.string().nullable().optional(),
    role: z.string(),
    must_change_password: z.boolean(),
    dialer_enabled: z.boolean().optional(),
    ai_mode: z.string(),
    status: z.string(),
  })
  .openapi("SessionCustomer");

export type Account = z.infer<typeof AccountSchema>;
export type SessionCustomer = z.infer<typeof SessionCustomerSchema>;
