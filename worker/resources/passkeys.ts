import { z } from "@hono/zod-openapi";

export const PasskeySchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: "YubiKey 5C" }),
    transports: z
      .array(z.string())
      .nullable()
      .optional()
      .openapi({ example: ["usb"] }),
    created_at: z.string().openapi({ format: "date-time" }),
    last_used_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("Passkey");

export const RegistrationBeginSchema = z
  .object({
    options: z.record(z.string(), z.unknown()).openapi({ description: "PublicKeyCredentialCreationOptionsJSON" }),
    state: z.string().openapi({ description: "Signed token echoing the single-use challenge" }),
  })
  .openapi("PasskeyRegistrationBegin");

/** A WebAuthn credential as the browser's JSON serialisation gives it. */
const CredentialJson = z
  .object({ id: z.string(), rawId: z.string(), type: z.literal("public-key"), response: z.record(z.string(), z.unknown()) })
  .passthrough()
  .openapi({ description: "RegistrationResponseJSON / AuthenticationResponseJSON from the browser" });

export const RegistrationCompleteSchema = z
  .object({
    credential: CredentialJson,
    state: z.string(),
    name: z.string().max(100).nullable().optional(),
  })
  .openapi("PasskeyRegistrationComplete");

export const RenamePasskeySchema = z.object({ name: z.string().min(1).max(100) }).openapi("PasskeyRename");

export const PasskeyLoginSchema = z.object({ login_token: z.string(), assertion: CredentialJson }).openapi("PasskeyLogin");

export const PasskeyEnrollSchema = z
  .object({ enroll_token: z.string(), credential: CredentialJson, name: z.string().max(100).nullable().optional() })
  .openapi("PasskeyEnroll");

export const PasskeyIdParam = z.object({ passkey_id: z.uuid().openapi({ param: { name: "passkey_id", in: "path" } }) });
export const UserIdParam = z.object({ user_id: z.uuid().openapi({ param: { name: "user_id", in: "path" } }) });

export type Passkey = z.infer<typeof PasskeySchema>;
