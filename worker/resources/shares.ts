import { z } from "@hono/zod-openapi";

const ts = () => z.string().openapi({ format: "date-time" });

export const MAX_SHARE_HOURS = 8760;

export const CallShareSchema = z
  .object({
    id: z.uuid(),
    call_id: z.uuid(),
    url: z.string().openapi({
      description: "The page to send; it asks for the password",
      example: "https://shield.example.net/share/q2xV0m3lV8n1c8o0Jv1tq5b0Zp4ZyH6m2u0R3s9cW1E",
    }),
    label: z.string().nullable(),
    created_by: z.string().nullable(),
    created_at: ts(),
    expires_at: ts().nullable().openapi({ description: "null: never expires" }),
    revoked_at: ts().nullable(),
    last_viewed_at: ts().nullable(),
    view_count: z.number().int(),
    active: z.boolean().openapi({ description: "Neither revoked nor expired" }),
  })
  .openapi("CallShare");

export const CallShareWithPasswordSchema = CallShareSchema.extend({
  password: z.string().openapi({ description: "Returned only now; stored only as a hash", example: "K7QP-M2XD-9HRT-WA4C" }),
}).openapi("CallShareWithPassword");

export const ShareListSchema = z.object({ items: z.array(CallShareSchema) }).openapi("CallShareList");

export const CreateShareSchema = z
  .object({
    expires_in_hours: z
      .number()
      .int()
      .min(1)
      .max(MAX_SHARE_HOURS)
      .nullable()
      .optional()
      .openapi({ description: `1-${MAX_SHARE_HOURS}; left out: 168 (a week); null: never expires`, example: 72 }),
    label: z.string().trim().max(200).nullable().optional().openapi({ example: "For Visa fraud desk" }),
  })
  .openapi("CreateCallShare");

export const ShareIdParam = z.object({ share_id: z.uuid().openapi({ param: { name: "share_id", in: "path" } }) });

export const ShareTokenParam = z.object({
  token: z
    .string()
    .max(200)
    .openapi({ param: { name: "token", in: "path" }, description: "The token in the share link's URL" }),
});

export const ShareMetaSchema = z
  .object({
    exists: z.boolean(),
    requires_password: z.boolean(),
    revoked: z.boolean(),
    expired: z.boolean(),
    company_name: z.string().nullable().optional().openapi({ description: "Who shared it" }),
  })
  .openapi("ShareMeta");

export const UnlockSchema = z.object({ password: z.string().max(200) }).openapi("UnlockShare");

export const UnlockResultSchema = z
  .object({
    view_token: z.string().openapi({ description: "Send as X-Share-Token, or as `t` where a header cannot be sent" }),
    expires_in: z.number().int().openapi({ example: 900 }),
  })
  .openapi("ShareUnlockResult");

export const ViewTokenQuery = z.object({
  t: z.string().optional().openapi({ description: "The view token, where the X-Share-Token header cannot be sent" }),
});

export const ViewTokenHeader = z.object({
  "x-share-token": z.string().optional().openapi({ description: "The view token from unlock" }),
});

export const PublicShareSchema = z
  .object({
    shared_by: z.string().nullable().optional().openapi({ description: "The sharing company" }),
    shared_at: ts().optional(),
    label: z.string().nullable().optional(),
    expires_at: ts().nullable().optional(),
    call: z.object({
      dialed: z.string().nullable().optional(),
      ani: z.string().nullable().optional(),
      direction: z.string().optional(),
      started_at: ts().optional(),
      duration_sec: z.number().int().nullable().optional(),
    }),
    analysis: z
      .object({
        title: z.string().nullable().optional(),
        probability: z.number().int().optional(),
        category: z.string().optional(),
        entity: z.string().nullable().optional(),
        red_flags: z.array(z.string()).nullable().optional(),
        tcpa_comment: z.string().nullable().optional(),
        summary: z.string().nullable().optional(),
        recommendation: z.string().optional(),
      })
      .nullable()
      .optional(),
    transcript: z
      .object({ text: z.string(), segments: z.array(z.record(z.string(), z.unknown())).nullable().optional() })
      .nullable()
      .optional(),
    has_recording: z.boolean(),
  })
  .openapi("PublicShare", { description: "Only what the link shows: never the account's other data" });

export type CreateShare = z.infer<typeof CreateShareSchema>;
