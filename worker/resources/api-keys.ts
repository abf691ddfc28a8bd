import { z } from "@hono/zod-openapi";

export const ApiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: "billing-sync" }),
    prefix: z.string().openapi({ description: "The visible start of the key", example: "csk_Zq4T1a" }),
    last_used_at: z.string().nullable().openapi({ format: "date-time" }),
    revoked_at: z.string().nullable().openapi({ format: "date-time" }),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("ApiKey");

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The whole secret, shown only in this response", example: "csk_Zq4T1a…" }),
}).openapi("CreatedApiKey");

export const CreateApiKeySchema = z.object({ name: z.string().trim().min(1).max(100) }).openapi("CreateApiKey");

export const KeyIdParam = z.object({ key_id: z.uuid().openapi({ param: { name: "key_id", in: "path" } }) });
