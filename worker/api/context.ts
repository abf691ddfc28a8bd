// The customer API's Hono app type; the context every handler sees is worker/http/app-env.ts.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/app-env.ts";

export type Api = OpenAPIHono<AppEnv>;
