// What every handler finds on its context: the bindings, the parsed configuration and the database.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Bindings, Config } from "../env.ts";
import type { Db } from "../lib/db.ts";
import type { Principal } from "./auth/principal.ts";

export type AppEnv = {
  Bindings: Bindings;
  /** principal is set by requireAuth on authenticated routes only. */
  Variables: { config: Config; db: Db; principal: Principal };
};

export type Api = OpenAPIHono<AppEnv>;

/** What services need from a request: bindings, database, configuration. */
export const depsOf = (c: Context<AppEnv>) => ({ env: c.env, db: c.var.db, config: c.var.config });
