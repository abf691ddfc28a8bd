// An exchange operation is written once and served twice: by v2 (HTTP Digest, at its path) and,
// when it has a legacy controller name, by v1 (signature, at <legacy prefix>/<controller>.php).
// Both read the same form fields, run the same function and answer the same JSON.
import type { Hono } from "hono";
import type { z } from "zod";
import type { ExchangeRole } from "../services/exchange/context.ts";
import type { ExchangeContext, ExchangeEnv } from "./context.ts";
import { digestAuth } from "./digest/middleware.ts";
import { runIdempotently } from "./idempotency.ts";
import { formOf, success } from "./respond.ts";

export type Operation<S extends z.ZodType = z.ZodType> = {
  /** The API key that authenticates it: buyer endpoints the buyer key, seller endpoints the seller key. */
  role: ExchangeRole | "any";
  /** The form fields (query parameters on GET), validated; failures answer 400 naming the field. */
  input: S;
  /** The work; its object is answered as {status: "success", ...it}. c.var.exchange is the caller. */
  run: (c: ExchangeContext, input: z.infer<S>) => Promise<Record<string, unknown>>;
  /** When the answer is not the usual JSON (a CSV rate deck): the whole Response. */
  respond?: (c: ExchangeContext, input: z.infer<S>) => Promise<Response>;
  /** Honours an Idempotency-Key header (idempotency.ts); the name scopes the request hash. */
  idempotent?: string;
};

export const operation = <S extends z.ZodType>(op: Operation<S>): Operation<S> => op;

export type ExchangeRouter = {
  /** The exchange app under the prefix: add unauthenticated or specially authenticated routes to it directly. */
  app: Hono<ExchangeEnv>;
  /** v2: `method path` with Digest auth for op.role and the rate limits; v1 too when `legacyController` is given. */
  expose: <S extends z.ZodType>(method: "GET" | "POST", path: string, op: Operation<S>, legacyController?: string) => void;
  /** The legacy v1 controllers, by name. */
  legacy: Map<string, Operation>;
};

/** Runs an operation for an authenticated request whose fields have been read. */
export async function runOperation(c: ExchangeContext, op: Operation, input: unknown): Promise<Response> {
  if (op.respond) return op.respond(c, input);
  if (op.idempotent) return runIdempotently(c, op.idempotent, input, () => op.run(c, input));
  return success(c, await op.run(c, input));
}

export function newRouter(app: Hono<ExchangeEnv>): ExchangeRouter {
  const legacy = new Map<string, Operation>();
  return {
    app,
    legacy,
    expose(method, path, op, legacyController) {
      const handler = async (c: ExchangeContext) => runOperation(c, op as Operation, await formOf(c, op.input));
      if (method === "GET") app.get(path, digestAuth(op.role), handler);
      else app.post(path, digestAuth(op.role), handler);
      if (legacyController) {
        if (legacy.has(legacyController)) throw new Error(`legacy controller ${legacyController} registered twice`);
        legacy.set(legacyController, op as Operation);
      }
    },
  };
}
