import { createRoute, z } from "@hono/zod-openapi";
import type { Api } from "../context.ts";
import { jsonBody } from "../responses.ts";
import { PASSWORD_MIN_LENGTH } from "./schemas.ts";

const AuthConfigSchema = z
  .object({
    signup_enabled: z.boolean().openapi({ example: true }),
    password_min_length: z.number().int().openapi({ example: PASSWORD_MIN_LENGTH }),
    access_token_ttl_sec: z.number().int().openapi({ example: 900 }),
    session_idle_timeout_min: z.number().int().openapi({ description: "0: no idle timeout", example: 0 }),
  })
  .openapi("AuthConfig");

const route = createRoute({
  method: "get",
  path: "/auth/config",
  tags: ["Authentication"],
  summary: "What the sign-in page needs to know",
  responses: { 200: jsonBody(AuthConfigSchema, "Auth config") },
});

export function registerAuthConfig(api: Api) {
  api.openapi(route, (c) =>
    c.json(
      {
        signup_enabled: c.var.config.SIGNUP_ENABLED,
        password_min_length: PASSWORD_MIN_LENGTH,
        access_token_ttl_sec: c.var.config.ACCESS_TOKEN_TTL_SEC,
        session_idle_timeout_min: c.var.config.SESSION_IDLE_TIMEOUT_MIN,
      },
      200,
    ),
  );
}
