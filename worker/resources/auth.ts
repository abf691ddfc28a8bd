import { z } from "@hono/zod-openapi";
import { passwordProblem } from "../lib/passwords.ts";
import { AccountSchema, SessionCustomerSchema } from "./accounts.ts";

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_BYTES = 72;

/** A new password: 12 characters minimum, 72 UTF-8 bytes maximum. */
export const NewPasswordSchema = z
  .string()
  .superRefine((value, ctx) => {
    const problem = passwordProblem(value, PASSWORD_MIN_LENGTH, PASSWORD_MAX_BYTES);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi({ description: "12 characters minimum, 72 bytes maximum", example: "correct horse battery" });

const EmailSchema = z.email().max(254).openapi({ example: "noc@carrier.example" });

/** Attribution is a handful of utm_* strings: a bound keeps the stored free-form object small. */
const MAX_ATTRIBUTION_CHARS = 2048;

export const SignupRequestSchema = z
  .object({
    email: EmailSchema,
    password: NewPasswordSchema,
    company: z.string().max(200).nullable().optional().openapi({ example: "Example Carrier Ltd" }),
    full_name: z.string().max(200).nullable().optional().openapi({ example: "Ada Lovelace" }),
    attribution: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .refine((v) => v === undefined || v === null || JSON.stringify(v).length <= MAX_ATTRIBUTION_CHARS, {
        message: `attribution must be at most ${MAX_ATTRIBUTION_CHARS} characters as JSON`,
      })
      .openapi({ description: `Marketing attribution (utm_source and the like), at most ${MAX_ATTRIBUTION_CHARS} characters as JSON` }),
    accept_terms: z.boolean().default(false).openapi({ description: "Accepts the Terms in force" }),
  })
  .openapi("SignupRequest");

export const LoginRequestSchema = z
  .object({
    email: EmailSchema,
    password: z.string().max(1024).openapi({ example: "correct horse battery" }),
  })
  .openapi("LoginRequest");

export const TokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.number().int().openapi({ description: "Seconds", example: 900 }),
    customer: SessionCustomerSchema.nullable().optional(),
  })
  .openapi("TokenResponse");

export const SignupResponseSchema = z
  .object({
    customer: AccountSchema,
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.number().int(),
  })
  .openapi("SignupResponse");

export type SignupRequest = z.infer<typeof SignupRequestSchema>;
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const SecondFactorSchema = z
  .object({
    twofa_required: z.literal(true),
    login_token: z.string().optional().openapi({ description: "For /auth/login/passkey; single use, 5 minutes" }),
    enroll_token: z.string().optional().openapi({ description: "For /auth/login/passkey/enroll, when this member has no passkey yet" }),
    passkey_options: z
      .record(z.string(), z.unknown())
      .openapi({ description: "WebAuthn request options (login) or creation options (enrolment)" }),
  })
  .openapi("SecondFactorChallenge");

export const ChangePasswordSchema = z
  .object({ current_password: z.string().max(1024), new_password: NewPasswordSchema })
  .openapi("ChangePassword");

export const AuthConfigSchema = z
  .object({
    signup_enabled: z.boolean().openapi({ example: true }),
    password_min_length: z.number().int().openapi({ example: PASSWORD_MIN_LENGTH }),
    access_token_ttl_sec: z.number().int().openapi({ example: 900 }),
    session_idle_timeout_min: z.number().int().openapi({ description: "0: no idle timeout", example: 0 }),
  })
  .openapi("AuthConfig");
