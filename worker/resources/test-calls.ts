// Test calls (the platform dials a number through a destination and plays a sample) and the
// verified caller IDs they depend on (our extension of the published API).
import { z } from "@hono/zod-openapi";
import { TestCallStatus } from "../../schema/node-api.ts";

const ts = () => z.string().openapi({ format: "date-time" });

/** Test-call numbers, caller IDs and verified numbers: digits, * and #, with an optional leading +. */
export const NUMBER_PATTERN = /^\+?[0-9*#]{2,32}$/;
const NUMBER_RULE = "must be 2 to 32 digits, * or #, with an optional leading +";

export const TEST_SPEECHES = ["route_test", "scam_sample"] as const;
export const DEFAULT_TEST_SECONDS = 30;
export const MIN_TEST_SECONDS = 5;
export const MAX_TEST_SECONDS = 600;

const number = (example: string) => z.string().trim().regex(NUMBER_PATTERN, `number ${NUMBER_RULE}`).openapi({ example });

export const TestCallSchema = z
  .object({
    id: z.uuid(),
    status: TestCallStatus.openapi({
      description:
        "awaiting_confirm (asked with an AI connector token; a person confirms it in the portal within ten minutes), queued, " +
        "dialing, ringing, answered, done, failed (sip_code and sip_reason say why), cancelled, expired",
    }),
    number: z.string().openapi({ example: "+14155550123" }),
    caller_id: z.string().nullable().openapi({ description: "null: the platform's own number" }),
    destination_id: z.uuid().nullable(),
    seconds: z.number().int(),
    speech: z.string().openapi({ description: "route_test, scam_sample, or verification_code for a number's verification call" }),
    sip_call_id: z.string(),
    call_id: z.uuid().nullable().openapi({ description: "The call record the test produced (origin test), once admitted" }),
    agent_destination_id: z.uuid().nullable(),
    instruction: z.string().nullable(),
    agent_sip_call_id: z.string().nullable(),
    agent_call_id: z.uuid().nullable(),
    answered: z.boolean().nullable(),
    sip_code: z.number().int().nullable(),
    sip_reason: z.string().nullable(),
    talk_seconds: z.number().nullable(),
    ended_by: z.string().nullable().openapi({ description: "platform, callee, cancel or timeout" }),
    error: z.string().nullable().openapi({ description: "Why the platform could not place it (no_sip_node, node_timeout...)" }),
    purpose: z.string().openapi({ description: "test, or verify for a verified number's verification call", example: "test" }),
    created_by: z.string().nullable(),
    confirmed_at: ts().nullable(),
    confirmed_by: z.string().nullable(),
    confirm_url: z.string().nullable().openapi({ description: "Where a person confirms an awaiting_confirm test call" }),
    confirm_expires_at: ts().nullable(),
    created_at: ts(),
    updated_at: ts(),
  })
  .openapi("TestCall");

export const CreateTestCallSchema = z
  .object({
    number: number("+14155550123"),
    destination_id: z.uuid().optional().openapi({ description: "Left out: the account's default destination" }),
    caller_id: number("+14155550100")
      .optional()
      .openapi({ description: "One of the account's verified numbers; left out: the platform's own number" }),
    seconds: z
      .number()
      .int()
      .min(MIN_TEST_SECONDS)
      .max(MAX_TEST_SECONDS)
      .default(DEFAULT_TEST_SECONDS)
      .openapi({ description: `How long the sample plays, ${MIN_TEST_SECONDS}-${MAX_TEST_SECONDS} s` }),
    speech: z.enum(TEST_SPEECHES).default("route_test").openapi({ description: "scam_sample rings only verified numbers" }),
    agent_destination_id: z.uuid().optional().openapi({
      description: "Voice-agent mode: the answered number talks to this voice_ai destination instead of a sample (verified numbers only)",
    }),
    instruction: z.string().trim().min(1).max(2000).optional().openapi({ description: "What the voice agent is asked to do" }),
  })
  .openapi("CreateTestCall");

export const TestCallIdParam = z.object({ test_call_id: z.uuid().openapi({ param: { name: "test_call_id", in: "path" } }) });

// ---- Verified caller IDs (our extension) ----

export const VerifiedNumberSchema = z
  .object({
    id: z.uuid(),
    number: z.string().openapi({ example: "+14155550100" }),
    label: z.string().nullable(),
    verified: z.boolean(),
    verified_at: ts().nullable(),
    verification_method: z.string().nullable().openapi({ description: "call: the owner entered the code the platform spoke" }),
    code_expires_at: ts().nullable().openapi({ description: "Until when the last code spoken is good; null once verified" }),
    attempts_left: z.number().int().openapi({ description: "Wrong codes the current code still takes" }),
    created_at: ts(),
  })
  .openapi("VerifiedNumber");

export const CreateVerifiedNumberSchema = z
  .object({
    number: number("+14155550100"),
    label: z.string().trim().max(200).nullable().optional().openapi({ example: "NOC desk" }),
  })
  .openapi("CreateVerifiedNumber");

export const VerifyNumberSchema = z
  .object({
    code: z
      .string()
      .regex(/^[0-9]{6}$/, "code must be the six digits spoken")
      .openapi({ example: "418207" }),
  })
  .openapi("VerifyNumber");

export const VerifiedNumberIdParam = z.object({ number_id: z.uuid().openapi({ param: { name: "number_id", in: "path" } }) });

export type CreateTestCall = z.infer<typeof CreateTestCallSchema>;
export type CreateVerifiedNumber = z.infer<typeof CreateVerifiedNumberSchema>;
