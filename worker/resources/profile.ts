import { z } from "@hono/zod-openapi";
import { ProfileSchema } from "./accounts.ts";

const answer = z.string().max(500).nullable().optional();

export const ProfileUpdateSchema = z
  .object({
    switch_vendor: answer,
    expected_volume: answer,
    contact_role: answer,
    region: answer,
    referral_source: answer,
    phone: answer,
    skipped: z.boolean().optional().openapi({ description: "true: only stamp profile_completed_at" }),
  })
  .openapi("ProfileUpdate");

export const TermsAcceptanceSchema = z
  .object({
    terms_version: z.string().openapi({ example: "2026-01" }),
    terms_accepted_at: z.string().openapi({ format: "date-time" }),
    terms_current_version: z.string().openapi({ example: "2026-01" }),
  })
  .openapi("TermsAcceptance");

export { ProfileSchema };
