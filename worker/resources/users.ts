import { z } from "@hono/zod-openapi";

export const MAX_USERS = 10;

export const UserSchema = z
  .object({
    id: z.uuid(),
    email: z.string().openapi({ example: "analyst@carrier.example" }),
    name: z.string().nullable().openapi({ example: "Grace Hopper" }),
    role: z.string().openapi({ description: "owner or member", example: "member" }),
    is_active: z.boolean(),
    must_change_password: z.boolean(),
    last_login_at: z.string().nullable().openapi({ format: "date-time" }),
    last_login_ip: z.string().nullable().optional(),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("User");

export const UserListSchema = z
  .object({ items: z.array(UserSchema), max_users: z.number().int().openapi({ example: MAX_USERS }) })
  .openapi("UserList");

export const WelcomeEmailSchema = z
  .object({
    sent: z.boolean(),
    error: z.string().nullable().optional(),
    skipped_reason: z.string().nullable().optional().openapi({ description: "mail_not_configured: kept in the development outbox" }),
  })
  .openapi("WelcomeEmail");

export const InviteResultSchema = z
  .object({ user: UserSchema, welcome_email: WelcomeEmailSchema.nullable().optional() })
  .openapi("InviteResult");

export const InviteSchema = z.object({ email: z.email().max(254), name: z.string().max(200).nullable().optional() }).openapi("InviteUser");

export const UpdateUserSchema = z
  .object({ name: z.string().max(200).nullable().optional(), is_active: z.boolean().nullable().optional() })
  .openapi("UpdateUser");

export const UserIdParam = z.object({ user_id: z.uuid().openapi({ param: { name: "user_id", in: "path" } }) });
