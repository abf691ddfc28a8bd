import { createRoute, z } from "@hono/zod-openapi";
import { databaseAnswers } from "../../services/health.ts";
import { VERSION } from "../../version.ts";
import type { Api } from "../context.ts";
import { jsonBody } from "../responses.ts";

const HealthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]).openapi({ description: "degraded when a dependency fails", example: "ok" }),
    db: z.boolean().openapi({ description: "D1 answered a query", example: true }),
    version: z.string().openapi({ example: VERSION }),
  })
  .openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["Health"],
  summary: "Service health",
  description: "Always 200; `status` is `degraded` and `db` false when the database does not answer.",
  responses: { 200: jsonBody(HealthSchema, "Health") },
});

export function registerHealth(api: Api) {
  api.openapi(route, async (c) => {
    const db = await databaseAnswers(c.var.services);
    return c.json({ status: db ? ("ok" as const) : ("degraded" as const), db, version: VERSION }, 200);
  });
}
